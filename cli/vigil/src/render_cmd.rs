//! `vigil render MODEL [--highlight STATE:EVENT] [-o FILE] [--format svg|dot]`:
//! a picture of an automaton model through Graphviz, optionally with one
//! transition (typically a violation) drawn in red.

use std::path::Path;

use clap::ValueEnum;
use vigil_model::{render, Model};

use crate::dot2c_cmd::{load_model, write_output};
use crate::error::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RenderFormat {
    /// SVG drawn by Graphviz `dot`
    Svg,
    /// The Graphviz source
    Dot,
}

/// `STATE:EVENT` → (state, event) indices; unknown names are errors that
/// list the valid ones.
pub fn parse_highlight(model: &Model, spec: &str) -> Result<(usize, usize)> {
    let Some((state, event)) = spec.split_once(':') else {
        return Err(Error::setup(format!(
            "--highlight {spec}: expected STATE:EVENT (e.g. {}:{})",
            model.states[0], model.events[0]
        )));
    };
    let s = model.state_index(state).ok_or_else(|| {
        Error::setup(format!(
            "--highlight {spec}: unknown state `{state}`; the states of {} are: {}",
            model.name,
            model.states.join(", ")
        ))
    })?;
    let e = model.event_index(event).ok_or_else(|| {
        Error::setup(format!(
            "--highlight {spec}: unknown event `{event}`; the events of {} are: {}",
            model.name,
            model.events.join(", ")
        ))
    })?;
    Ok((s, e))
}

pub fn run(
    model: &Path,
    highlight: Option<&str>,
    output: Option<&Path>,
    format: RenderFormat,
) -> Result<()> {
    let model = load_model(model)?;
    let highlight = highlight.map(|h| parse_highlight(&model, h)).transpose()?;
    let bytes = match format {
        RenderFormat::Dot => render::to_dot(&model, highlight).into_bytes(),
        RenderFormat::Svg => render::to_svg(&model, highlight).map_err(Error::setup)?,
    };
    write_output(output, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wwnr() -> Model {
        vigil_model::dot::parse(
            Path::new("wwnr.dot"),
            r#"digraph state_automaton {
	{node [shape = plaintext, style=invis, label=""] "__init_not_running"};
	{node [shape = ellipse] "not_running"};
	{node [shape = plaintext] "running"};
	"__init_not_running" -> "not_running";
	"not_running" -> "not_running" [ label = "wakeup" ];
	"not_running" -> "running" [ label = "switch_in" ];
	"running" -> "not_running" [ label = "switch_out" ];
}"#,
        )
        .unwrap()
    }

    #[test]
    fn highlight_names() {
        let m = wwnr();
        assert_eq!(parse_highlight(&m, "running:wakeup").unwrap(), (1, 2));
        let e = parse_highlight(&m, "sleeping:wakeup").unwrap_err();
        assert!(
            e.message
                .contains("unknown state `sleeping`; the states of wwnr are: not_running, running"),
            "{}",
            e.message
        );
        let e = parse_highlight(&m, "running:exit").unwrap_err();
        assert!(
            e.message.contains(
                "unknown event `exit`; the events of wwnr are: switch_in, switch_out, wakeup"
            ),
            "{}",
            e.message
        );
        let e = parse_highlight(&m, "running").unwrap_err();
        assert!(e.message.contains("expected STATE:EVENT"), "{}", e.message);
    }
}
