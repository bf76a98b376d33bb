//! vigil's offline checker: ftrace text (`trace_pipe`, `trace-cmd report`)
//! against a model and its binding, streaming in constant memory.
