// Mandelbrot set membership on an n×n grid, 50 iterations per point:
// float arithmetic with a data-dependent early exit. Prints the count.
// bench: quick=30
fn main(n: int) {
    var count = 0;
    let fn_ = float(n);
    for py in 0..n {
        let ci = 2.0 * float(py) / fn_ - 1.0;
        for px in 0..n {
            let cr = 2.0 * float(px) / fn_ - 1.5;
            var zr = 0.0;
            var zi = 0.0;
            var i = 0;
            var inside = true;
            while i < 50 {
                let tr = zr * zr - zi * zi + cr;
                let ti = 2.0 * zr * zi + ci;
                zr = tr;
                zi = ti;
                if zr * zr + zi * zi > 4.0 {
                    inside = false;
                    break;
                }
                i += 1;
            }
            if inside {
                count += 1;
            }
        }
    }
    print(count);
}

main(1750);
