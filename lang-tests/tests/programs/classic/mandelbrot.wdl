// Mandelbrot set as ASCII art.
let width = 60;
let height = 24;
let max_iter = 50;
for row in 0..height {
    var line = "";
    for col in 0..width {
        let cr = -2.2 + 3.2 * float(col) / float(width);
        let ci = -1.2 + 2.4 * float(row) / float(height);
        var zr = 0.0;
        var zi = 0.0;
        var k = 0;
        while k < max_iter && zr * zr + zi * zi <= 4.0 {
            let t = zr * zr - zi * zi + cr;
            zi = 2.0 * zr * zi + ci;
            zr = t;
            k += 1;
        }
        if k == max_iter { line += "#"; }
        else if k > 10 { line += "+"; }
        else if k > 4 { line += "."; }
        else { line += " "; }
    }
    print(line);
}
