// exit: 1
// stderr: unterminated block comment
// stderr: compile-errors/unterminated_comment.wdl:5:1
print(1);
/* outer /* inner */
print(2);
