//! Linking a freshly compiled entry into the engine's master program.
//!
//! An entry is compiled against a prelude listing the master's functions
//! and globals in id order; the frontend keeps those indices (prelude
//! functions appear as bodiless declarations unless the entry redefines
//! them). Linking then
//! - replaces the bodies of redefined functions in place (same `FuncId`,
//!   so every existing caller sees the new definition),
//! - appends new functions and, last, the entry's `.main`,
//! - appends new globals (old globals keep their storage),
//! - renumbers calls and source-file indices of the linked bodies.

use std::fmt;

use cranelift_entity::EntityRef;
use waddle_opt::ir::{FuncId, GlobalId, InstKind, Program, Type};

/// Why an entry could not be linked: it does not extend the master's
/// prelude (a frontend bug, reported as an internal error).
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) enum LinkError {
    /// The entry has fewer functions than its prelude.
    FewerFunctions {
        /// Functions in the entry.
        entry: usize,
        /// Functions in the master.
        prelude: usize,
    },
    /// A prelude function has another name in the entry.
    Renamed {
        /// The function.
        func: FuncId,
        /// Its name in the entry.
        found: String,
        /// Its name in the master.
        expected: String,
    },
    /// The entry has fewer host functions than its prelude.
    DroppedHostFns,
    /// The entry has fewer globals than its prelude.
    DroppedGlobals,
    /// A prelude global has another name or type in the entry.
    ChangedGlobal(GlobalId),
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkError::FewerFunctions { entry, prelude } => write!(
                f,
                "entry has {entry} functions, fewer than the {prelude} of its prelude"
            ),
            LinkError::Renamed {
                func,
                found,
                expected,
            } => write!(
                f,
                "prelude function {func} is `{found}`, expected `{expected}`"
            ),
            LinkError::DroppedHostFns => f.write_str("entry drops prelude host functions"),
            LinkError::DroppedGlobals => f.write_str("entry drops prelude globals"),
            LinkError::ChangedGlobal(g) => write!(f, "prelude global {g} changed"),
        }
    }
}

impl std::error::Error for LinkError {}

/// What linking changed.
#[derive(Debug, Default)]
pub(crate) struct Linked {
    /// Functions added or given a new body (including `main`).
    pub changed: Vec<FuncId>,
    /// The entry's top-level code, appended last; drop it after running.
    pub main: Option<FuncId>,
    /// Types of the globals appended, in id order.
    pub new_globals: Vec<Type>,
}

/// Every function with a body in `program` that calls one of `targets`
/// directly or through a chain of callers, leaving out `exclude`.
pub(crate) fn callers_of(program: &Program, targets: &[FuncId], exclude: &[FuncId]) -> Vec<FuncId> {
    let mut hit = vec![false; program.funcs.len()];
    for t in targets {
        if let Some(h) = hit.get_mut(t.index()) {
            *h = true;
        }
    }
    let mut found = Vec::new();
    loop {
        let before = found.len();
        for (id, f) in program.funcs.iter() {
            if hit[id.index()] || f.is_declaration() {
                continue;
            }
            let calls_hit = f.insts().values().any(|i| match &i.kind {
                InstKind::Call(c, _) => hit.get(c.index()).copied().unwrap_or(false),
                _ => false,
            });
            if calls_hit {
                hit[id.index()] = true;
                if !exclude.contains(&id) {
                    found.push(id);
                }
            }
        }
        if found.len() == before {
            return found;
        }
    }
}

/// Links `entry` into `master`. `Err` on an entry that does not extend the
/// master's prelude (a frontend bug, reported as an internal error).
pub(crate) fn link(master: &mut Program, entry: Program) -> Result<Linked, LinkError> {
    let n_old = master.funcs.len();
    if entry.funcs.len() < n_old {
        return Err(LinkError::FewerFunctions {
            entry: entry.funcs.len(),
            prelude: n_old,
        });
    }
    for (id, f) in master.funcs.iter() {
        let e = &entry.funcs[id];
        if e.name() != f.name() {
            return Err(LinkError::Renamed {
                func: id,
                found: e.name().to_string(),
                expected: f.name().to_string(),
            });
        }
    }
    if entry.host_fns.len() < master.host_fns.len() {
        return Err(LinkError::DroppedHostFns);
    }
    // Host-function ids are the engine's: the entry's table extends the master's.
    master.host_fns = entry.host_fns.clone();
    if entry.globals.len() < master.globals.len() {
        return Err(LinkError::DroppedGlobals);
    }
    for (id, g) in master.globals.iter() {
        if entry.globals[id] != *g {
            return Err(LinkError::ChangedGlobal(id));
        }
    }

    // New ids: prelude functions keep theirs, new ones follow in order,
    // `main` comes last.
    let main = entry.main;
    let n_new = entry.funcs.len() - n_old - usize::from(main.is_some_and(|m| m.index() >= n_old));
    let main_id = main.map(|_| FuncId::new(n_old + n_new));
    let mut remap = Vec::with_capacity(entry.funcs.len());
    let mut next = n_old;
    for (id, _) in entry.funcs.iter() {
        if id.index() < n_old {
            remap.push(id);
        } else if Some(id) == main {
            remap.push(main_id.unwrap_or(id));
        } else {
            remap.push(FuncId::new(next));
            next += 1;
        }
    }

    let file_base = master.files.len() as u32;
    master.files.extend(entry.files);
    let mut linked = Linked {
        main: main_id,
        ..Linked::default()
    };
    let mut appended = Vec::new();
    let mut main_func = None;
    for (id, mut f) in entry.funcs.into_iter() {
        if f.is_declaration() && id.index() < n_old {
            continue;
        }
        f.remap_callees(|callee| remap[callee.index()]);
        f.offset_files(file_base);
        let new_id = remap[id.index()];
        if Some(id) == main {
            main_func = Some(f);
        } else if id.index() < n_old {
            master.funcs[new_id] = f;
            linked.changed.push(new_id);
        } else {
            appended.push(f);
        }
    }
    for f in appended {
        linked.changed.push(master.funcs.push(f));
    }
    if let Some(f) = main_func {
        let id = master.funcs.push(f);
        debug_assert_eq!(Some(id), main_id);
        linked.changed.push(id);
    }
    for (id, g) in entry.globals.into_iter() {
        if id.index() >= master.globals.len() {
            linked.new_globals.push(g.ty);
            master.globals.push(g);
        }
    }
    master.main = None;
    Ok(linked)
}

/// Removes the last function (an entry's `main`, after it ran).
pub(crate) fn drop_last_function(master: &mut Program, main: FuncId) {
    if master.funcs.len() == main.index() + 1 {
        let funcs = std::mem::take(&mut master.funcs);
        master.funcs = funcs
            .into_iter()
            .filter(|&(id, _)| id != main)
            .map(|(_, f)| f)
            .collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use waddle_opt::ir::{Function, FunctionBuilder, GlobalData, Signature, SrcLoc, Terminator};

    fn sig(n: usize) -> Signature {
        Signature {
            params: vec![Type::Int; n],
            ret: Type::Int,
        }
    }

    /// `name(x..) = const` or `name() = callee()`.
    fn func(name: &str, n: usize, body: Option<(i64, Option<FuncId>)>) -> Function {
        let mut f = Function::new(name, sig(n));
        if let Some((k, callee)) = body {
            let mut b = FunctionBuilder::new(&mut f);
            let e = b.create_block();
            let loc = SrcLoc {
                file: 0,
                line: 1,
                col: 1,
            };
            let v = match callee {
                Some(c) => b.ins(e, InstKind::Call(c, vec![]), Type::Int, loc),
                None => b.ins(e, InstKind::IConst(k), Type::Int, loc),
            };
            b.set_terminator(e, Terminator::Return(Some(v)));
        }
        f
    }

    fn callee_of(p: &Program, f: FuncId) -> Option<FuncId> {
        p.funcs[f].insts().values().find_map(|d| match d.kind {
            InstKind::Call(c, _) => Some(c),
            _ => None,
        })
    }

    #[test]
    fn links_new_redefined_and_main() {
        let mut master = Program::default();
        let first = {
            let mut p = Program::default();
            p.files.push("<1>".into());
            p.funcs.push(func("a", 0, Some((1, None))));
            p.funcs
                .push(func(".main", 0, Some((0, Some(FuncId::from_u32(0))))));
            p.main = Some(FuncId::from_u32(1));
            p.globals.push(GlobalData {
                name: "x".into(),
                ty: Type::Int,
            });
            p
        };
        let l = link(&mut master, first).unwrap();
        assert_eq!(l.main, Some(FuncId::from_u32(1)));
        assert_eq!(l.new_globals, vec![Type::Int]);
        assert_eq!(
            callee_of(&master, FuncId::from_u32(1)),
            Some(FuncId::from_u32(0))
        );
        drop_last_function(&mut master, l.main.unwrap());
        assert_eq!(master.funcs.len(), 1);

        // Entry 2: redefines `a` (id 0), puts `.main` (id 1) before a new
        // function `b` (id 2) that main calls.
        let second = {
            let mut p = Program::default();
            p.files.push("<2>".into());
            p.funcs.push(func("a", 0, Some((2, None))));
            p.funcs
                .push(func(".main", 0, Some((0, Some(FuncId::from_u32(2))))));
            p.funcs
                .push(func("b", 0, Some((0, Some(FuncId::from_u32(0))))));
            p.main = Some(FuncId::from_u32(1));
            p.globals.push(GlobalData {
                name: "x".into(),
                ty: Type::Int,
            });
            p.globals.push(GlobalData {
                name: "y".into(),
                ty: Type::Str,
            });
            p
        };
        let l = link(&mut master, second).unwrap();
        let (a, b, main) = (
            FuncId::from_u32(0),
            FuncId::from_u32(1),
            FuncId::from_u32(2),
        );
        assert_eq!(l.main, Some(main));
        assert_eq!(l.changed, vec![a, b, main]);
        assert_eq!(l.new_globals, vec![Type::Str]);
        assert_eq!(master.funcs[b].name(), "b");
        assert_eq!(callee_of(&master, main), Some(b));
        assert_eq!(callee_of(&master, b), Some(a));
        // Source locations point into the master's file table.
        let loc = master.funcs[b].insts().values().next().unwrap().loc;
        assert_eq!(master.files[loc.file as usize], "<2>");
        drop_last_function(&mut master, main);
        assert_eq!(master.funcs.len(), 2);
        assert_eq!(master.globals.len(), 2);
    }

    #[test]
    fn rejects_entries_that_do_not_extend_the_prelude() {
        let mut master = Program::default();
        master.funcs.push(func("a", 0, Some((1, None))));
        let mut entry = Program::default();
        entry.funcs.push(func("zzz", 0, None));
        assert!(matches!(
            link(&mut master, entry),
            Err(LinkError::Renamed { found, expected, .. }) if found == "zzz" && expected == "a"
        ));
        assert_eq!(
            link(&mut master, Program::default()).err(),
            Some(LinkError::FewerFunctions {
                entry: 0,
                prelude: 1
            })
        );
    }
}
