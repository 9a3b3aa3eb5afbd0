//! Instructions and terminators of Waddle IR.
//!
//! Fritz ch. 3 (Fig. 3.4, 3.5) extended with floats, strings, arrays, globals
//! and intrinsics. Array accesses are split into an explicit
//! [`InstKind::BoundsCheck`] and unchecked loads/stores so optimizers can see
//! and remove checks. Every instruction that may trap carries the source
//! location its runtime error reports.

use super::entities::{Block, FuncId, GlobalId, HostFnId, Value};

/// A source location, 1-based line and column in file `file` of the
/// program's file table; `line == 0` means "unknown".
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct SrcLoc {
    /// Index into [`super::Program::files`].
    pub file: u32,
    /// 1-based line, 0 when unknown.
    pub line: u32,
    /// 1-based column (in characters), 0 when unknown.
    pub col: u32,
}

impl SrcLoc {
    /// The unknown location.
    pub const NONE: SrcLoc = SrcLoc {
        file: 0,
        line: 0,
        col: 0,
    };

    /// Whether the location is known.
    pub fn is_known(self) -> bool {
        self.line != 0
    }
}

/// Comparison condition codes. Integer comparisons are signed; string
/// comparisons are byte-wise; float comparisons are IEEE (false on NaN except `Ne`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Cmp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl Cmp {
    /// Whether an ordering `o` of the operands (integers, booleans, the
    /// bytes of strings) satisfies the condition.
    pub fn holds(self, o: std::cmp::Ordering) -> bool {
        match self {
            Cmp::Eq => o.is_eq(),
            Cmp::Ne => o.is_ne(),
            Cmp::Lt => o.is_lt(),
            Cmp::Le => o.is_le(),
            Cmp::Gt => o.is_gt(),
            Cmp::Ge => o.is_ge(),
        }
    }

    /// The condition on `x` and `y` with Rust's operators: for floats the
    /// IEEE answer (false on NaN except `Ne`).
    pub fn eval<T: PartialOrd>(self, x: T, y: T) -> bool {
        match self {
            Cmp::Eq => x == y,
            Cmp::Ne => x != y,
            Cmp::Lt => x < y,
            Cmp::Le => x <= y,
            Cmp::Gt => x > y,
            Cmp::Ge => x >= y,
        }
    }
}

/// Pure one-operand operations.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum UnaryOp {
    /// int → int, wrapping negation.
    INeg,
    /// float → float.
    FNeg,
    /// bool → bool.
    BNot,
    /// int → float.
    IToF,
    /// float → int, truncating; NaN → 0, out of range saturates.
    FToI,
    /// int → int, wrapping absolute value.
    IAbs,
    /// float → float.
    FAbs,
    /// float → float.
    FSqrt,
    /// float → float (keeps the sign of zero).
    FFloor,
    /// float → float (keeps the sign of zero).
    FCeil,
    /// float → float.
    FSin,
    /// float → float.
    FCos,
    /// float → float.
    FTan,
    /// float → float.
    FExp,
    /// float → float (natural logarithm).
    FLog,
}

/// Pure two-operand operations. `IDiv` and `IRem` trap on a zero divisor
/// (`division by zero`); everything else never traps.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum BinaryOp {
    /// Wrapping `+`.
    IAdd,
    /// Wrapping `-`.
    ISub,
    /// Wrapping `*`.
    IMul,
    /// Truncating division; traps on zero; `MIN / -1` wraps.
    IDiv,
    /// Remainder with the sign of the dividend; traps on zero; `MIN % -1` is 0.
    IRem,
    /// Bitwise and.
    IAnd,
    /// Bitwise or.
    IOr,
    /// Bitwise xor.
    IXor,
    /// Shift left, count mod 64.
    IShl,
    /// Arithmetic shift right, count mod 64.
    IShr,
    /// Signed minimum.
    IMin,
    /// Signed maximum.
    IMax,
    /// IEEE `+`.
    FAdd,
    /// IEEE `-`.
    FSub,
    /// IEEE `*`.
    FMul,
    /// IEEE `/`.
    FDiv,
    /// C `fmod`.
    FRem,
    /// Rust `f64::min` (`min(-0.0, 0.0)` is `-0.0`).
    FMin,
    /// Rust `f64::max` (`max(-0.0, 0.0)` is `0.0`).
    FMax,
    /// Integer comparison → bool.
    ICmp(Cmp),
    /// Float comparison → bool.
    FCmp(Cmp),
    /// Bool comparison (`Eq`/`Ne` only) → bool.
    BCmp(Cmp),
}

impl BinaryOp {
    /// Whether the operation can raise a runtime error.
    pub fn may_trap(self) -> bool {
        matches!(self, BinaryOp::IDiv | BinaryOp::IRem)
    }

    /// Whether swapping the operands gives the same result bit for bit.
    /// Float `+` and `*` are left out: which NaN payload comes out can
    /// depend on the operand order.
    pub fn commutes(self) -> bool {
        matches!(
            self,
            BinaryOp::IAdd
                | BinaryOp::IMul
                | BinaryOp::IAnd
                | BinaryOp::IOr
                | BinaryOp::IXor
                | BinaryOp::IMin
                | BinaryOp::IMax
                | BinaryOp::ICmp(Cmp::Eq | Cmp::Ne)
                | BinaryOp::BCmp(Cmp::Eq | Cmp::Ne)
        )
    }
}

/// What an instruction does. Operands are SSA values; the result (if any)
/// is recorded in [`InstData::result`] with its type.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum InstKind {
    /// `int` constant.
    IConst(i64),
    /// `float` constant, stored as IEEE bits so the IR is `Eq`-comparable.
    FConst(u64),
    /// `bool` constant.
    BConst(bool),
    /// `str` constant (the host interns it once per function preparation).
    SConst(Box<str>),
    /// Copy of another value (Fritz's `move`).
    Copy(Value),
    /// Pure unary operation.
    Unary(UnaryOp, Value),
    /// Binary operation (pure except the division trap).
    Binary(BinaryOp, Value, Value),
    /// Direct call of a function of the same program. Traps with
    /// `stack overflow` when the call-depth budget is exhausted.
    Call(FuncId, Vec<Value>),
    /// Call of a host function ([`super::Program::host_fns`]). An effect
    /// like `print`: never removed, reordered or duplicated; it may read and
    /// write anything the host reaches and traps `host error` when the host
    /// function fails or panics.
    HostCall(HostFnId, Vec<Value>),
    /// Read a global.
    GlobalGet(GlobalId),
    /// Write a global.
    GlobalSet(GlobalId, Value),
    /// New array with the given elements, in order (`[]` has none).
    ArrayLit(Vec<Value>),
    /// `[value; count]`: traps `negative array length` / `out of memory`;
    /// array values are deep-copied into every element.
    ArrayRepeat(Value, Value),
    /// Length of an array → int.
    ArrayLen(Value),
    /// Traps `index out of bounds` unless `0 <= index < len(array)`.
    BoundsCheck(Value, Value),
    /// Unchecked element load `array[index]` (must be dominated by a check).
    ArrayGet(Value, Value),
    /// Unchecked element store `array[index] = value`.
    ArraySet(Value, Value, Value),
    /// Append `value` to `array`.
    ArrayPush(Value, Value),
    /// Remove and return the last element; traps `pop from empty array`.
    ArrayPop(Value),
    /// Byte length of a string → int.
    StrLen(Value),
    /// String concatenation → str.
    StrConcat(Value, Value),
    /// Byte-wise string comparison → bool.
    StrCmp(Cmp, Value, Value),
    /// The text `print` would write for the operand (any non-void type) → str.
    ToStr(Value),
    /// Write the operand and a newline to standard output.
    Print(Value),
    /// Traps `assertion failed` when the bool operand is false.
    Assert(Value),
    /// Seconds since an arbitrary start → float.
    Clock,
}

/// An instruction: what it does, its result and its source location.
#[derive(Clone, PartialEq, Debug)]
pub struct InstData {
    /// The operation and its operands.
    pub kind: InstKind,
    /// The SSA value the instruction defines, `None` for `void` results.
    pub result: Option<Value>,
    /// Where a runtime error raised by this instruction points.
    pub loc: SrcLoc,
}

/// A control-flow edge: the target block and the arguments for its parameters.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct BlockCall {
    /// Target block.
    pub block: Block,
    /// One argument per target block parameter.
    pub args: Vec<Value>,
}

impl BlockCall {
    /// An edge to `block` passing `args`.
    pub fn new(block: Block, args: Vec<Value>) -> BlockCall {
        BlockCall { block, args }
    }
}

/// The last instruction of a block (Fritz Fig. 3.5).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Terminator {
    /// `switch value [k → target(args)]* default target(args)`. With no
    /// `value` and no cases it is an unconditional jump. A `bool` value
    /// switches on `1` (true) and `0` (false); case keys are distinct.
    Switch {
        /// The scrutinee (`int` or `bool`), `None` for a plain jump.
        value: Option<Value>,
        /// Case keys and their targets.
        cases: Vec<(i64, BlockCall)>,
        /// Target when no case matches.
        default: BlockCall,
    },
    /// Return from the function, with a value unless it returns `void`.
    Return(Option<Value>),
}

impl Terminator {
    /// An unconditional jump.
    pub fn jump(target: BlockCall) -> Terminator {
        Terminator::Switch {
            value: None,
            cases: Vec::new(),
            default: target,
        }
    }

    /// A two-way branch on a `bool`: `then` when true, `otherwise` when false.
    pub fn branch(cond: Value, then: BlockCall, otherwise: BlockCall) -> Terminator {
        Terminator::Switch {
            value: Some(cond),
            cases: vec![(1, then)],
            default: otherwise,
        }
    }

    /// The target of an unconditional jump; `None` for a branch, a switch
    /// or a return.
    pub fn as_jump(&self) -> Option<&BlockCall> {
        match self {
            Terminator::Switch {
                value: None,
                cases,
                default,
            } if cases.is_empty() => Some(default),
            _ => None,
        }
    }

    /// The outgoing edges, cases first then the default.
    pub fn successors(&self) -> impl Iterator<Item = &BlockCall> {
        let (cases, default): (&[(i64, BlockCall)], Option<&BlockCall>) = match self {
            Terminator::Switch { cases, default, .. } => (cases, Some(default)),
            Terminator::Return(_) => (&[], None),
        };
        cases.iter().map(|(_, c)| c).chain(default)
    }

    /// The outgoing edges, mutably.
    pub fn successors_mut(&mut self) -> impl Iterator<Item = &mut BlockCall> {
        let (cases, default): (&mut [(i64, BlockCall)], Option<&mut BlockCall>) = match self {
            Terminator::Switch { cases, default, .. } => (cases, Some(default)),
            Terminator::Return(_) => (&mut [], None),
        };
        cases.iter_mut().map(|(_, c)| c).chain(default)
    }

    /// Calls `f` on every value the terminator uses (scrutinee, edge
    /// arguments, returned value).
    pub fn for_each_arg(&self, mut f: impl FnMut(Value)) {
        match self {
            Terminator::Switch { value, .. } => value.iter().copied().for_each(&mut f),
            Terminator::Return(v) => v.iter().copied().for_each(&mut f),
        }
        for bc in self.successors() {
            bc.args.iter().copied().for_each(&mut f);
        }
    }

    /// Calls `f` on a mutable reference to every value the terminator uses.
    pub fn for_each_arg_mut(&mut self, mut f: impl FnMut(&mut Value)) {
        match self {
            Terminator::Switch { value, .. } => value.iter_mut().for_each(&mut f),
            Terminator::Return(v) => v.iter_mut().for_each(&mut f),
        }
        for bc in self.successors_mut() {
            bc.args.iter_mut().for_each(&mut f);
        }
    }
}
