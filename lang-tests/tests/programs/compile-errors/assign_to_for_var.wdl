// exit: 1
// stderr: cannot assign to immutable binding
// stderr: compile-errors/assign_to_for_var.wdl:5:
for i in 0..3 {
    i += 1;
}
