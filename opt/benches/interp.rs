//! Interpreter benchmarks on IR built the way the frontend lowers source
//! (loops as block-parameter cycles, explicit bounds checks, globals for
//! top-level arrays): recursive fib(27), a 1000×1000 nested integer loop,
//! a sieve of 200 000, and 1000 steps of the n-body `advance`.
//!
//! The same programs in Lua, C, LuaJIT and Python, for comparison with
//! other implementations, are in the one benchmark suite directory,
//! `runtime/cli/bench/` (run by `waddle bench`).

use criterion::{criterion_group, criterion_main, Criterion};
use waddle_opt::abi::{obj_kind, ArrayObj, ElemLayout, ObjHeader, StrObj, TrapCode, Word};
use waddle_opt::interp::{Host, Interpreter};
use waddle_opt::ir::{
    BinaryOp, Block, BlockCall, Cmp, FuncId, Function, FunctionBuilder, GlobalData, GlobalId,
    InstKind, Program, ScalarType, Signature, SrcLoc, Terminator, Type, Value,
};

/// A host that owns its objects and frees them on `reset`.
#[derive(Default)]
struct BenchHost {
    globals: Vec<Word>,
    arrays: Vec<(Box<ArrayObj>, Vec<Word>)>,
    strs: Vec<(Box<StrObj>, Box<[u8]>)>,
    printed: Vec<String>,
}

fn header(kind: u8) -> ObjHeader {
    ObjHeader {
        kind,
        marked: 0,
        elems_are_refs: 0,
        pinned: 0,
        byte_elems: 0,
        reserved: [0; 3],
    }
}

impl BenchHost {
    fn alloc_array(&mut self, elem: Type, elems: Vec<Word>) -> Word {
        let layout = ElemLayout::of(elem);
        let len = elems.len();
        // Byte elements are packed into the words of the same kind of buffer.
        let mut data = match layout {
            ElemLayout::Byte => {
                let mut words = vec![0 as Word; len.div_ceil(8)];
                for (i, e) in elems.iter().enumerate() {
                    words[i / 8] |= (e & 1) << (8 * (i % 8));
                }
                words
            }
            _ => elems,
        };
        let mut obj = Box::new(ArrayObj {
            header: layout.header(),
            len: len as u64,
            cap: len as u64,
            data: data.as_mut_ptr() as *mut u8,
        });
        let w = &mut *obj as *mut ArrayObj as Word;
        self.arrays.push((obj, data));
        w
    }
}

impl Host for BenchHost {
    fn intern_str(&mut self, s: &str) -> Word {
        let bytes: Box<[u8]> = s.as_bytes().into();
        let mut obj = Box::new(StrObj {
            header: header(obj_kind::STR),
            len: bytes.len() as u64,
            ptr: bytes.as_ptr(),
        });
        let w = &mut *obj as *mut StrObj as Word;
        self.strs.push((obj, bytes));
        w
    }
    fn globals(&mut self) -> &mut [Word] {
        &mut self.globals
    }
    fn array_new(&mut self, elem: Type, elems: &[Word], _: &[Word]) -> Result<Word, TrapCode> {
        Ok(self.alloc_array(elem, elems.to_vec()))
    }
    fn array_repeat(&mut self, elem: Type, v: Word, n: i64, _: &[Word]) -> Result<Word, TrapCode> {
        let n = usize::try_from(n).map_err(|_| TrapCode::NegativeLength)?;
        Ok(self.alloc_array(elem, vec![v; n]))
    }
    fn array_push(&mut self, _: Word, _: Word, _: &[Word]) -> Result<(), TrapCode> {
        Err(TrapCode::OutOfMemory)
    }
    fn str_concat(&mut self, _: Word, _: Word, _: &[Word]) -> Result<Word, TrapCode> {
        Err(TrapCode::OutOfMemory)
    }
    fn to_str(&mut self, _: Type, _: Word, _: &[Word]) -> Result<Word, TrapCode> {
        Err(TrapCode::OutOfMemory)
    }
    fn print(&mut self, ty: Type, value: Word) {
        self.printed.push(match ty {
            Type::Float => format!("{:?}", f64::from_bits(value)),
            _ => (value as i64).to_string(),
        });
    }
    fn clock(&mut self) -> f64 {
        0.0
    }
    fn consume_fuel(&mut self, _: u64) -> Result<(), TrapCode> {
        Ok(())
    }
}

/// A builder positioned at a block, with shorthands.
struct B<'a> {
    b: FunctionBuilder<'a>,
    blk: Block,
}

const N: SrcLoc = SrcLoc::NONE;
const FLOATS: Type = Type::Array {
    elem: ScalarType::Float,
    depth: 1,
};

impl B<'_> {
    fn block(&mut self, tys: &[Type]) -> (Block, Vec<Value>) {
        let blk = self.b.create_block();
        let v = tys
            .iter()
            .map(|&t| self.b.append_block_param(blk, t))
            .collect();
        (blk, v)
    }
    fn ins(&mut self, k: InstKind, t: Type) -> Value {
        self.b.ins(self.blk, k, t, N)
    }
    fn eff(&mut self, k: InstKind) {
        self.b.effect(self.blk, k, N);
    }
    fn i(&mut self, k: i64) -> Value {
        self.ins(InstKind::IConst(k), Type::Int)
    }
    fn f(&mut self, x: f64) -> Value {
        self.ins(InstKind::FConst(x.to_bits()), Type::Float)
    }
    fn op(&mut self, op: BinaryOp, a: Value, b: Value) -> Value {
        let t = match op {
            BinaryOp::ICmp(_) | BinaryOp::FCmp(_) => Type::Bool,
            BinaryOp::FAdd | BinaryOp::FSub | BinaryOp::FMul | BinaryOp::FDiv => Type::Float,
            _ => Type::Int,
        };
        self.ins(InstKind::Binary(op, a, b), t)
    }
    fn jump(&mut self, to: Block, args: Vec<Value>) {
        self.b
            .set_terminator(self.blk, Terminator::jump(BlockCall::new(to, args)));
    }
    fn br(&mut self, c: Value, t: Block, ta: Vec<Value>, e: Block, ea: Vec<Value>) {
        let term = Terminator::branch(c, BlockCall::new(t, ta), BlockCall::new(e, ea));
        self.b.set_terminator(self.blk, term);
    }
    fn ret(&mut self, v: Option<Value>) {
        self.b.set_terminator(self.blk, Terminator::Return(v));
    }
    /// `for i in lo..hi { body(i) }` as the frontend lowers it.
    fn for_range(&mut self, lo: Value, hi: Value, body: impl FnOnce(&mut Self, Value)) {
        let (head, hp) = self.block(&[Type::Int]);
        let (bodyb, _) = self.block(&[]);
        let (exit, _) = self.block(&[]);
        self.jump(head, vec![lo]);
        self.blk = head;
        let c = self.op(BinaryOp::ICmp(Cmp::Lt), hp[0], hi);
        self.br(c, bodyb, vec![], exit, vec![]);
        self.blk = bodyb;
        body(self, hp[0]);
        let one = self.i(1);
        let next = self.op(BinaryOp::IAdd, hp[0], one);
        self.jump(head, vec![next]);
        self.blk = exit;
    }
    /// `global[i]` with its bounds check.
    fn load(&mut self, g: GlobalId, i: Value) -> Value {
        let a = self.ins(InstKind::GlobalGet(g), FLOATS);
        self.eff(InstKind::BoundsCheck(a, i));
        self.ins(InstKind::ArrayGet(a, i), Type::Float)
    }
    /// `global[i] op= e(...)`: load, compute, store.
    fn update(&mut self, g: GlobalId, i: Value, op: BinaryOp, e: impl FnOnce(&mut Self) -> Value) {
        let a = self.ins(InstKind::GlobalGet(g), FLOATS);
        self.eff(InstKind::BoundsCheck(a, i));
        let old = self.ins(InstKind::ArrayGet(a, i), Type::Float);
        let rhs = e(self);
        let new = self.op(op, old, rhs);
        self.eff(InstKind::ArraySet(a, i, new));
    }
}

fn function(
    p: &mut Program,
    name: &str,
    params: &[Type],
    ret: Type,
    body: impl FnOnce(&mut B<'_>, Vec<Value>),
) -> FuncId {
    let sig = Signature {
        params: params.to_vec(),
        ret,
    };
    let id = p.funcs.push(Function::new(name, sig));
    let f = &mut p.funcs[id];
    let mut b = B {
        b: FunctionBuilder::new(f),
        blk: Block::from_u32(0),
    };
    let (entry, vals) = b.block(params);
    b.blk = entry;
    body(&mut b, vals);
    id
}

fn fib_program() -> (Program, FuncId) {
    let mut p = Program::default();
    let fib = FuncId::from_u32(0);
    function(&mut p, "fib", &[Type::Int], Type::Int, |b, v| {
        let (small, _) = b.block(&[]);
        let (big, _) = b.block(&[]);
        let two = b.i(2);
        let c = b.op(BinaryOp::ICmp(Cmp::Lt), v[0], two);
        b.br(c, small, vec![], big, vec![]);
        b.blk = small;
        b.ret(Some(v[0]));
        b.blk = big;
        let one = b.i(1);
        let n1 = b.op(BinaryOp::ISub, v[0], one);
        let a = b.ins(InstKind::Call(fib, vec![n1]), Type::Int);
        let two = b.i(2);
        let n2 = b.op(BinaryOp::ISub, v[0], two);
        let c = b.ins(InstKind::Call(fib, vec![n2]), Type::Int);
        let r = b.op(BinaryOp::IAdd, a, c);
        b.ret(Some(r));
    });
    (p, fib)
}

/// `for i in 0..n { for j in 0..n { total = total + ((i*j) ^ (i+j)) % 7 } }`
/// with `total` a global, as in `loops.wdl`.
fn loops_program() -> (Program, FuncId) {
    let mut p = Program::default();
    let total = p.globals.push(GlobalData {
        name: "total".into(),
        ty: Type::Int,
    });
    let main = function(&mut p, "loops", &[Type::Int], Type::Int, |b, v| {
        let zero = b.i(0);
        b.eff(InstKind::GlobalSet(total, zero));
        b.for_range(zero, v[0], |b, i| {
            let zero = b.i(0);
            b.for_range(zero, v[0], |b, j| {
                let t = b.ins(InstKind::GlobalGet(total), Type::Int);
                let m = b.op(BinaryOp::IMul, i, j);
                let s = b.op(BinaryOp::IAdd, i, j);
                let x = b.op(BinaryOp::IXor, m, s);
                let seven = b.i(7);
                let r = b.op(BinaryOp::IRem, x, seven);
                let n = b.op(BinaryOp::IAdd, t, r);
                b.eff(InstKind::GlobalSet(total, n));
            });
        });
        let t = b.ins(InstKind::GlobalGet(total), Type::Int);
        b.ret(Some(t));
    });
    (p, main)
}

/// `sieve(n)` as in `sieve.wdl`: the number of primes ≤ n.
fn sieve_program() -> (Program, FuncId) {
    let mut p = Program::default();
    let bools = Type::Array {
        elem: ScalarType::Bool,
        depth: 1,
    };
    let f = function(&mut p, "sieve", &[Type::Int], Type::Int, |b, v| {
        let n = v[0];
        let t = b.ins(InstKind::BConst(true), Type::Bool);
        let one = b.i(1);
        let n1 = b.op(BinaryOp::IAdd, n, one);
        let flags = b.ins(InstKind::ArrayRepeat(t, n1), bools);
        let fls = b.ins(InstKind::BConst(false), Type::Bool);
        for k in [0, 1] {
            let i = b.i(k);
            b.eff(InstKind::BoundsCheck(flags, i));
            b.eff(InstKind::ArraySet(flags, i, fls));
        }
        let (head, hp) = b.block(&[Type::Int]);
        let (body, _) = b.block(&[]);
        let (inner0, _) = b.block(&[]);
        let (ihead, ihp) = b.block(&[Type::Int]);
        let (ibody, _) = b.block(&[]);
        let (next, _) = b.block(&[]);
        let (count0, _) = b.block(&[]);
        let (chead, chp) = b.block(&[Type::Int, Type::Int]);
        let (cbody, _) = b.block(&[]);
        let (inc, _) = b.block(&[]);
        let (cnext, cnp) = b.block(&[Type::Int]);
        let (done, _) = b.block(&[]);
        let two = b.i(2);
        b.jump(head, vec![two]);
        b.blk = head;
        let ii = b.op(BinaryOp::IMul, hp[0], hp[0]);
        let c = b.op(BinaryOp::ICmp(Cmp::Le), ii, n);
        b.br(c, body, vec![], count0, vec![]);
        b.blk = body;
        b.eff(InstKind::BoundsCheck(flags, hp[0]));
        let fi = b.ins(InstKind::ArrayGet(flags, hp[0]), Type::Bool);
        b.br(fi, inner0, vec![], next, vec![]);
        b.blk = inner0;
        let j0 = b.op(BinaryOp::IMul, hp[0], hp[0]);
        b.jump(ihead, vec![j0]);
        b.blk = ihead;
        let c = b.op(BinaryOp::ICmp(Cmp::Le), ihp[0], n);
        b.br(c, ibody, vec![], next, vec![]);
        b.blk = ibody;
        b.eff(InstKind::BoundsCheck(flags, ihp[0]));
        b.eff(InstKind::ArraySet(flags, ihp[0], fls));
        let j2 = b.op(BinaryOp::IAdd, ihp[0], hp[0]);
        b.jump(ihead, vec![j2]);
        b.blk = next;
        let one = b.i(1);
        let i2 = b.op(BinaryOp::IAdd, hp[0], one);
        b.jump(head, vec![i2]);
        b.blk = count0;
        let zero = b.i(0);
        b.jump(chead, vec![zero, zero]);
        b.blk = chead;
        let c = b.op(BinaryOp::ICmp(Cmp::Lt), chp[0], n1);
        b.br(c, cbody, vec![], done, vec![]);
        b.blk = cbody;
        b.eff(InstKind::BoundsCheck(flags, chp[0]));
        let fk = b.ins(InstKind::ArrayGet(flags, chp[0]), Type::Bool);
        b.br(fk, inc, vec![], cnext, vec![chp[1]]);
        b.blk = inc;
        let one = b.i(1);
        let c2 = b.op(BinaryOp::IAdd, chp[1], one);
        b.jump(cnext, vec![c2]);
        b.blk = cnext;
        let one = b.i(1);
        let k2 = b.op(BinaryOp::IAdd, chp[0], one);
        b.jump(chead, vec![k2, cnp[0]]);
        b.blk = done;
        b.ret(Some(chp[1]));
    });
    (p, f)
}

/// The n-body `advance(dt)` over global float arrays (as in `nbody.wdl`),
/// run `steps` times; returns `xs[0] + xs[1] + ...` as a checksum.
fn nbody_program() -> (Program, FuncId, [GlobalId; 7]) {
    let mut p = Program::default();
    let names = ["xs", "ys", "zs", "vxs", "vys", "vzs", "ms"];
    let g: Vec<GlobalId> = names
        .iter()
        .map(|n| {
            p.globals.push(GlobalData {
                name: n.to_string(),
                ty: FLOATS,
            })
        })
        .collect();
    let [xs, ys, zs, vxs, vys, vzs, ms] = [g[0], g[1], g[2], g[3], g[4], g[5], g[6]];
    let advance = function(&mut p, "advance", &[Type::Float], Type::Unit, |b, v| {
        let dt = v[0];
        let m = b.ins(InstKind::GlobalGet(ms), FLOATS);
        let n = b.ins(InstKind::ArrayLen(m), Type::Int);
        let zero = b.i(0);
        b.for_range(zero, n, |b, i| {
            let one = b.i(1);
            let i1 = b.op(BinaryOp::IAdd, i, one);
            b.for_range(i1, n, |b, j| {
                let d = [xs, ys, zs].map(|arr| {
                    let a = b.load(arr, i);
                    let c = b.load(arr, j);
                    b.op(BinaryOp::FSub, a, c)
                });
                let sq = d.map(|x| b.op(BinaryOp::FMul, x, x));
                let s01 = b.op(BinaryOp::FAdd, sq[0], sq[1]);
                let d2 = b.op(BinaryOp::FAdd, s01, sq[2]);
                let sqrt = b.ins(
                    InstKind::Unary(waddle_opt::ir::UnaryOp::FSqrt, d2),
                    Type::Float,
                );
                let den = b.op(BinaryOp::FMul, d2, sqrt);
                let mag = b.op(BinaryOp::FDiv, dt, den);
                for (k, vel) in [vxs, vys, vzs].into_iter().enumerate() {
                    b.update(vel, i, BinaryOp::FSub, |b| {
                        let mj = b.load(ms, j);
                        let t = b.op(BinaryOp::FMul, d[k], mj);
                        b.op(BinaryOp::FMul, t, mag)
                    });
                }
                for (k, vel) in [vxs, vys, vzs].into_iter().enumerate() {
                    b.update(vel, j, BinaryOp::FAdd, |b| {
                        let mi = b.load(ms, i);
                        let t = b.op(BinaryOp::FMul, d[k], mi);
                        b.op(BinaryOp::FMul, t, mag)
                    });
                }
            });
        });
        let zero = b.i(0);
        b.for_range(zero, n, |b, i| {
            for (pos, vel) in [(xs, vxs), (ys, vys), (zs, vzs)] {
                b.update(pos, i, BinaryOp::FAdd, |b| {
                    let vi = b.load(vel, i);
                    b.op(BinaryOp::FMul, dt, vi)
                });
            }
        });
        b.ret(None);
    });
    let main = function(&mut p, "steps", &[Type::Int], Type::Float, |b, v| {
        let zero = b.i(0);
        b.for_range(zero, v[0], |b, _| {
            let dt = b.f(0.01);
            b.eff(InstKind::Call(advance, vec![dt]));
        });
        let m = b.ins(InstKind::GlobalGet(ms), FLOATS);
        let n = b.ins(InstKind::ArrayLen(m), Type::Int);
        let (head, hp) = b.block(&[Type::Int, Type::Float]);
        let (body, _) = b.block(&[]);
        let (exit, _) = b.block(&[]);
        let z = b.f(0.0);
        b.jump(head, vec![zero, z]);
        b.blk = head;
        let c = b.op(BinaryOp::ICmp(Cmp::Lt), hp[0], n);
        b.br(c, body, vec![], exit, vec![]);
        b.blk = body;
        let x = b.load(xs, hp[0]);
        let s = b.op(BinaryOp::FAdd, hp[1], x);
        let one = b.i(1);
        let i2 = b.op(BinaryOp::IAdd, hp[0], one);
        b.jump(head, vec![i2, s]);
        b.blk = exit;
        b.ret(Some(hp[1]));
    });
    (p, main, [xs, ys, zs, vxs, vys, vzs, ms])
}

/// Initial n-body state (the benchmarks-game values, momentum offset).
fn nbody_init(h: &mut BenchHost, g: &[GlobalId; 7]) {
    let pi = std::f64::consts::PI;
    let solar = 4.0 * pi * pi;
    let days = 365.24;
    let xs = [
        0.0,
        4.841_431_442_464_72,
        8.343_366_718_244_58,
        12.894_369_562_139_13,
        15.379_697_114_850_917,
    ];
    let ys = [
        0.0,
        -1.160_320_044_027_428_4,
        4.124_798_564_124_305,
        -15.111_151_401_698_631,
        -25.919_314_609_987_964,
    ];
    let zs = [
        0.0,
        -0.103_622_044_471_123_11,
        -0.403_523_417_114_321_4,
        -0.223_307_578_892_655_73,
        0.179_258_772_950_371_18,
    ];
    let mut vxs = [
        0.0,
        1.660_076_642_744_037e-3,
        -2.767_425_107_268_624e-3,
        2.964_601_375_647_616e-3,
        2.680_677_724_903_893e-3,
    ]
    .map(|v| v * days);
    let mut vys = [
        0.0,
        7.699_011_184_197_404e-3,
        4.998_528_012_349_172e-3,
        2.378_471_739_594_809_5e-3,
        1.628_241_700_382_423e-3,
    ]
    .map(|v| v * days);
    let mut vzs = [
        0.0,
        -6.904_600_169_720_63e-5,
        2.304_172_975_737_639_3e-5,
        -2.965_895_685_402_375_6e-5,
        -9.515_922_545_197_159e-5,
    ]
    .map(|v| v * days);
    let ms = [
        1.0,
        9.547_919_384_243_266e-4,
        2.858_859_806_661_308e-4,
        4.366_244_043_351_563e-5,
        5.151_389_020_466_114_5e-5,
    ]
    .map(|m| m * solar);
    let (mut px, mut py, mut pz) = (0.0, 0.0, 0.0);
    for i in 0..5 {
        px += vxs[i] * ms[i];
        py += vys[i] * ms[i];
        pz += vzs[i] * ms[i];
    }
    vxs[0] = -px / solar;
    vys[0] = -py / solar;
    vzs[0] = -pz / solar;
    let arrays = [xs, ys, zs, vxs, vys, vzs, ms];
    h.globals = vec![0; 7];
    for (gid, vals) in g.iter().zip(arrays) {
        let w = h.alloc_array(Type::Float, vals.iter().map(|x| x.to_bits()).collect());
        h.globals[gid.index()] = w;
    }
}

use cranelift_entity::EntityRef;

fn bench(c: &mut Criterion) {
    let (p, fib) = fib_program();
    let mut h = BenchHost::default();
    let it = Interpreter::new(&p, &mut h);
    assert_eq!(it.call(&mut h, fib, &[27]), Ok(196_418));
    c.bench_function("interp/fib27", |b| b.iter(|| it.call(&mut h, fib, &[27])));

    let (p, loops) = loops_program();
    let mut h = BenchHost {
        globals: vec![0],
        ..BenchHost::default()
    };
    let it = Interpreter::new(&p, &mut h);
    eprintln!("loops(1000) = {:?}", it.call(&mut h, loops, &[1000]));
    c.bench_function("interp/loops1000x1000", |b| {
        b.iter(|| it.call(&mut h, loops, &[1000]))
    });

    let (p, sieve) = sieve_program();
    let mut h = BenchHost::default();
    let it = Interpreter::new(&p, &mut h);
    assert_eq!(it.call(&mut h, sieve, &[200_000]), Ok(17_984));
    c.bench_function("interp/sieve200000", |b| {
        b.iter(|| {
            let r = it.call(&mut h, sieve, &[200_000]);
            h.arrays.clear();
            r
        })
    });

    let (p, steps, g) = nbody_program();
    let mut h = BenchHost::default();
    nbody_init(&mut h, &g);
    let it = Interpreter::new(&p, &mut h);
    let r = it.call(&mut h, steps, &[1000]).map(f64::from_bits);
    eprintln!("nbody: sum of xs after 1000 steps = {r:?}");
    c.bench_function("interp/nbody1000", |b| {
        b.iter(|| it.call(&mut h, steps, &[1000]))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
