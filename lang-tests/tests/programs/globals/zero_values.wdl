// Every global holds its type's zero value until its declaration runs.
fn show() {
    print(gi);
    print(gf);
    print(gb);
    print("[" + gs + "]");
    print(ga);
    print(len(gm));
}
show();
var gi = 5;
var gf = 2.5;
var gb = true;
var gs = "set";
var ga: [int] = [1];
var gm = [[1, 2]];
show();
