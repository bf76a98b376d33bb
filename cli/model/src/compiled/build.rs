//! Model + binding → [`Compiled`]: every limit and every name is checked
//! here, once, with the model's or the binding's file:line.

use super::*;
use crate::guard::RawCmp;

/// Compile `model` with `binding`.
pub fn compile(model: &Model, binding: &Binding) -> Result<Compiled, Diagnostic> {
    let mdiag = |line: u32, msg: String| Diagnostic::new(&model.path, line, msg);
    if model.states.len() >= FORGET as usize || model.events.len() >= FORGET as usize {
        return Err(mdiag(0, format!("{} states and {} events: at most {} of each", model.states.len(), model.events.len(), FORGET - 1)));
    }
    let nevents = model.events.len();
    let mut next = Vec::with_capacity(model.states.len() * nevents);
    for row in &model.function {
        next.extend(row.iter().map(|n| n.map_or(NONE, |s| s as u16)));
    }
    let mut c = Compiled {
        kind: if model.ltl.is_some() {
            Kind::Ltl
        } else if model.is_hybrid() {
            Kind::Ha
        } else {
            Kind::Da
        },
        scope: binding.scope,
        has_start: binding.has_start_rules(),
        check_exit: binding.at_exit_final.is_some(),
        nstates: model.states.len() as u16,
        nevents: nevents as u16,
        next,
        finals: model.finals.clone(),
        edges: Vec::new(),
        invariants: Vec::new(),
        cmps: Vec::new(),
        guards: Vec::new(),
        rules: Vec::new(),
        sources: Vec::new(),
        clocks: Vec::new(),
        envs: Vec::new(),
        model_name: model.name.clone(),
        model_path: model.path.display().to_string(),
        binding_path: binding.path.display().to_string(),
        states: model.states.clone(),
        events: model.events.clone(),
        ltl: model.ltl.clone(),
    };
    if c.kind == Kind::Ha {
        hybrid(&mut c, model, binding)?;
    }
    if let Some(b) = &c.ltl {
        ltl_labels(b, model)?;
    }
    for r in 0..binding.rules.len() {
        let rule = compile_rule(&mut c, model, binding, r)?;
        c.rules.push(rule);
    }
    Ok(c)
}

fn compile_rule(c: &mut Compiled, model: &Model, binding: &Binding, r: usize) -> Result<Rule, Diagnostic> {
    let rule = &binding.rules[r];
    let fields = rule.source.fields();
    let bdiag = |msg: String| Diagnostic::new(&binding.path, rule.line, msg);
    if fields.len() > MAX_FIELDS {
        return Err(bdiag(format!("{} has {} fields: at most {MAX_FIELDS}", rule.source, fields.len())));
    }
    let source_text = rule.source.to_string();
    let source = match c.sources.iter().position(|s| *s == source_text) {
        Some(i) => i,
        None => {
            c.sources.push(source_text);
            c.sources.len() - 1
        }
    };
    let cond_first = c.cmps.len() as u16;
    for cond in &rule.conds {
        c.cmps.push(Cmp {
            op: cond.op,
            lhs_kind: Opnd::Field,
            lhs: cond.field as u8,
            rhs_kind: Opnd::Const,
            rhs: 0,
            end_term: false,
            value: cond.value,
        });
    }
    let event = match rule.event {
        RuleEvent::Event(e) => e as u16,
        RuleEvent::Forget => FORGET,
    };
    let mut env_fields = [NO_FIELD; MAX_ENVS];
    for (i, env) in c.envs.iter().enumerate() {
        let wanted = binding.envs.iter().find(|a| a.name == *env).map_or(env.as_str(), |a| a.field.as_str());
        match fields.iter().position(|f| *f == wanted) {
            Some(f) => env_fields[i] = f as u8,
            None => {
                if let Some(g) = guard_reading(c, model, event, i) {
                    return Err(bdiag(format!(
                        "the guard `{}` ({}:{}) reads `{wanted}`, which {} does not carry (its fields are {}); say which field carries it with `env {env} = FIELD`",
                        g.text,
                        model.path.display(),
                        g.line,
                        rule.source,
                        fields.join(", ")
                    )));
                }
            }
        }
    }
    Ok(Rule {
        event,
        mode: rule.mode,
        key: rule.key.map_or(NO_FIELD, |k| k as u8),
        cond_first,
        cond_n: rule.conds.len() as u16,
        env_fields,
        source: source as u16,
        line: rule.line,
        atom: rule.atom,
    })
}

/// Every state label fits the C step's form (see [`super::labels`]).
fn ltl_labels(b: &crate::ltl::Buchi, model: &Model) -> Result<(), Diagnostic> {
    for s in 0..b.states.len() {
        if super::labels::label(b, s).is_none() {
            let text: Vec<String> = b.states[s].label.iter().map(|f| f.to_string()).collect();
            return Err(Diagnostic::new(
                &model.path,
                model.state_lines.get(s).copied().unwrap_or(0),
                format!(
                    "the label of state S{s}, `{}`, needs more than {} terms as an OR of conjunctions and as the negation of one, the most the C engines take",
                    text.join(" && "),
                    super::labels::MAX_TERMS
                ),
            ));
        }
    }
    Ok(())
}

/// A guard on `event` (from any state) that reads environment variable `env`.
fn guard_reading<'c>(c: &'c Compiled, _model: &Model, event: u16, env: usize) -> Option<&'c Guard> {
    if event == FORGET {
        return None;
    }
    (0..c.nstates as usize)
        .map(|s| c.edges[s * c.nevents as usize + event as usize].guard)
        .filter(|&g| g != NONE)
        .map(|g| &c.guards[g as usize])
        .find(|g| {
            c.cmps[g.first as usize..][..g.n as usize]
                .iter()
                .any(|k| (k.lhs_kind == Opnd::Env && k.lhs as usize == env) || (k.rhs_kind == Opnd::Env && k.rhs as usize == env))
        })
}

/// Clocks, guards, resets and invariants.
fn hybrid(c: &mut Compiled, model: &Model, binding: &Binding) -> Result<(), Diagnostic> {
    let mdiag = |line: u32, msg: String| Diagnostic::new(&model.path, line, msg);
    for a in &model.annotations {
        for clock in &a.resets {
            if !c.clocks.contains(clock) {
                if c.clocks.len() == MAX_CLOCKS {
                    return Err(mdiag(a.line, format!("clock `{clock}`: at most {MAX_CLOCKS} clocks per model")));
                }
                c.clocks.push(clock.clone());
            }
        }
    }
    c.edges = vec![Edge::PLAIN; c.next.len()];
    for a in &model.annotations {
        let cell = a.from * c.nevents as usize + a.event;
        for clock in &a.resets {
            c.edges[cell].resets |= 1 << c.clocks.iter().position(|k| k == clock).unwrap();
        }
        if let Some(text) = &a.guard {
            let dnf = guard::parse(text).map_err(|m| mdiag(a.line, format!("guard `{text}`: {m}")))?;
            let first = c.cmps.len() as u16;
            for term in &dnf {
                for (i, raw) in term.iter().enumerate() {
                    let mut cmp = resolve(c, binding, raw).map_err(|m| mdiag(a.line, format!("guard `{text}`: {m}")))?;
                    cmp.end_term = i + 1 == term.len();
                    c.cmps.push(cmp);
                }
            }
            c.edges[cell].guard = c.guards.len() as u16;
            c.guards.push(Guard { first, n: c.cmps.len() as u16 - first, text: text.clone(), line: a.line });
        }
    }
    c.invariants = vec![None; c.nstates as usize];
    for inv in &model.invariants {
        c.invariants[inv.state] = Some(invariant(c, binding, inv).map_err(|m| mdiag(inv.line, format!("invariant `{}`: {m}", inv.text)))?);
    }
    Ok(())
}

fn invariant(c: &Compiled, binding: &Binding, inv: &crate::Invariant) -> Result<Invariant, String> {
    let dnf = guard::parse(&inv.text)?;
    let [term] = dnf.as_slice() else { return Err("an invariant is one comparison `CLOCK < BOUND`".into()) };
    let [raw] = term.as_slice() else { return Err("an invariant is one comparison `CLOCK < BOUND`".into()) };
    let clock = match &raw.lhs {
        Atom::Name(n) => c.clocks.iter().position(|k| k == n),
        _ => None,
    };
    let Some(clock) = clock else {
        return Err(format!(
            "`{}` is not a clock (a clock is what an edge resets: {})",
            guard::show(&raw.lhs),
            if c.clocks.is_empty() { "this model resets none".to_string() } else { c.clocks.join(", ") }
        ));
    };
    let bound = constant(binding, &c.clocks, &raw.rhs, true)?
        .ok_or_else(|| format!("the bound `{}` must be a number or a binding constant", guard::show(&raw.rhs)))?;
    if bound < 0 {
        return Err(format!("the bound {bound} is negative"));
    }
    let expires_after = match raw.op {
        Op::Lt => bound as u64,
        Op::Le => bound as u64 + 1,
        _ => return Err(format!("an invariant bounds a clock from above (`<` or `<=`), not `{}`", raw.op.as_str())),
    };
    Ok(Invariant { clock: clock as u8, expires_after, text: inv.text.clone(), line: inv.line })
}

/// A guard's comparison with names resolved: a clock, a binding constant,
/// else an environment variable read from the event's fields.  A constant
/// goes to the right (`1 == x` becomes `x == 1`).
fn resolve(c: &mut Compiled, binding: &Binding, raw: &RawCmp) -> Result<Cmp, String> {
    let (mut lhs, mut op, mut rhs) = (&raw.lhs, raw.op, &raw.rhs);
    let is_clock = |a: &Atom| matches!(a, Atom::Name(n) if c.clocks.contains(n));
    if constant(binding, &c.clocks, lhs, false)?.is_some() {
        std::mem::swap(&mut lhs, &mut rhs);
        op = mirror(op);
    }
    let clocky = is_clock(lhs) || is_clock(rhs);
    let (lhs_kind, l) = match variable(c, lhs) {
        Some(v) => v,
        None => return Err(format!("`{}` compares two constants", guard::show(&raw.lhs))),
    };
    let (rhs_kind, r, value) = match constant(binding, &c.clocks, rhs, clocky)? {
        Some(v) => (Opnd::Const, 0, v),
        None => {
            let (k, i) = variable(c, rhs).unwrap();
            (k, i, 0)
        }
    };
    Ok(Cmp { op, lhs_kind, lhs: l, rhs_kind, rhs: r, end_term: false, value })
}

fn mirror(op: Op) -> Op {
    match op {
        Op::Lt => Op::Gt,
        Op::Le => Op::Ge,
        Op::Gt => Op::Lt,
        Op::Ge => Op::Le,
        o => o,
    }
}

/// A clock or an environment variable (registered on first use).
fn variable(c: &mut Compiled, a: &Atom) -> Option<(Opnd, u8)> {
    let Atom::Name(n) = a else { return None };
    if let Some(k) = c.clocks.iter().position(|k| k == n) {
        return Some((Opnd::Clock, k as u8));
    }
    let i = match c.envs.iter().position(|e| e == n) {
        Some(i) => i,
        None => {
            c.envs.push(n.clone());
            c.envs.len() - 1
        }
    };
    Some((Opnd::Env, i as u8))
}

/// The value of a number or a binding constant (`None` for a variable).
/// Jiffies become nanoseconds through the binding's `hz`.
/// `against_clock`: the other side is a clock, so a name that is not a
/// clock must be a constant.
fn constant(binding: &Binding, clocks: &[String], a: &Atom, against_clock: bool) -> Result<Option<i64>, String> {
    let (value, unit) = match a {
        Atom::Num { value, unit } => (*value, *unit),
        Atom::Name(n) if clocks.contains(n) => return Ok(None),
        Atom::Name(n) | Atom::Call(n) => match binding.consts.iter().find(|k| k.name == *n) {
            Some(k) => (k.value, k.unit),
            None if matches!(a, Atom::Call(_)) || against_clock => {
                return Err(format!(
                    "`{}` is not defined: give its value in the binding, `const {n} = VALUE` (e.g. `10ms`)",
                    guard::show(a)
                ))
            }
            None => return Ok(None),
        },
    };
    match unit {
        Unit::Jiffies => {
            let Some((hz, _)) = binding.hz else {
                return Err(format!("{value}j is in jiffies: give the tick rate in the binding (`hz 250`)"));
            };
            value
                .checked_mul(1_000_000_000 / hz)
                .map(Some)
                .ok_or_else(|| format!("{value}j is out of range"))
        }
        _ => Ok(Some(value)),
    }
}
