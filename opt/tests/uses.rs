//! Use lists: users of each value and replacing all uses.

use cranelift_entity::EntityRef;
use waddle_opt::ir::{
    parse_program, print_function, verify_program, Block, FuncId, Inst, UseLists, User, Value,
};

const TEXT: &str = "fn fn0 \"f\"(int) -> int {
block0(v0: int):
    v1: int = iconst 1
    v2: int = iadd v0, v0
    v3: int = imul v2, v1
    v4: bool = icmp lt v3, v0
    br v4, block1(v0), block1(v3)
block1(v5: int):
    v6: int = copy v5
    return v6
}
";

#[test]
fn users_in_layout_order_each_once() {
    let p = parse_program(TEXT).unwrap();
    let f = &p.funcs[FuncId::new(0)];
    let uses = UseLists::compute(f);
    let v = Value::new;
    // v0: iadd (twice, listed once), icmp, the branch.
    assert_eq!(
        uses.uses(v(0)),
        &[
            User::Inst(Inst::new(1)),
            User::Inst(Inst::new(3)),
            User::Term(Block::new(0))
        ]
    );
    assert_eq!(
        uses.uses(v(3)),
        &[User::Inst(Inst::new(3)), User::Term(Block::new(0))]
    );
    assert_eq!(uses.uses(v(6)), &[User::Term(Block::new(1))]);
    assert!(!uses.is_unused(v(4)) && uses.is_unused(Value::new(100)));
}

#[test]
fn replace_all_uses_rewrites_and_updates() {
    let mut p = parse_program(TEXT).unwrap();
    let id = FuncId::new(0);
    let mut uses = UseLists::compute(&p.funcs[id]);
    // Replace v3 by v2 (both int): imul result uses go to v2.
    uses.replace_all_uses(&mut p.funcs[id], Value::new(3), Value::new(2));
    let text = print_function(&p, id);
    assert!(text.contains("v4: bool = icmp lt v2, v0"), "{text}");
    assert!(text.contains("br v4, block1(v0), block1(v2)"), "{text}");
    assert!(uses.is_unused(Value::new(3)));
    // The lists equal a fresh computation (as sets; order may differ).
    let fresh = UseLists::compute(&p.funcs[id]);
    for i in 0..7 {
        let mut a = uses.uses(Value::new(i)).to_vec();
        let mut b = fresh.uses(Value::new(i)).to_vec();
        let key = |u: &User| match *u {
            User::Inst(i) => (0, i.index()),
            User::Term(b) => (1, b.index()),
        };
        a.sort_by_key(key);
        b.sort_by_key(key);
        assert_eq!(a, b, "v{i}");
    }
    verify_program(&p).unwrap();
}
