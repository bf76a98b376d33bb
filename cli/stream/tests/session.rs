//! vigil_stream::Session: the checks a collector makes on each connection.

use vigil_stream::*;

fn hello(resume: i64) -> Message {
    Message::Hello(Hello {
        stream: "h:1:1".into(),
        program: "p".into(),
        pid: 1,
        host: "h".into(),
        mode: Mode::Lossless,
        resume,
        events: vec![EventDecl {
            id: 0,
            name: "f".into(),
            kind: EventKind::Entry,
            args: vec![ArgType::U64],
            names: vec![],
        }],
    })
}

fn batch(seq: i64, thread: i64, tseq: i64, id: u32) -> Message {
    let mut ev = Vec::new();
    push_record(&mut ev, id, 1, &[7]);
    let bytes = encode_batch(
        &BatchHeader {
            seq,
            thread,
            tseq,
            lost: 0,
            n: 1,
            clock: Clock { tsc: 0, ns: 0, ns_per_tick: 1.0 },
        },
        &ev,
    );
    Message::parse(bson::RawDocumentBuf::from_bytes(bytes).unwrap()).unwrap()
}

fn refused(msgs: &[Message]) -> String {
    let mut s = Session::new();
    for m in msgs {
        if let Err(e) = s.accept(m) {
            return e;
        }
    }
    panic!("accepted {msgs:?}")
}

#[test]
fn in_order_is_accepted() {
    let mut s = Session::new();
    for m in [
        hello(3),
        batch(3, 1, 0, 0),
        batch(5, 2, 10, 0),
        batch(6, 1, 4, 0),
        Message::Mark(9),
        Message::End(End { seq: 7, threads: vec![] }),
        Message::Mark(10),
    ] {
        s.accept(&m).unwrap();
    }
    assert!(s.started());
}

#[test]
fn each_refusal_says_why() {
    let cases: Vec<(Vec<Message>, &str)> = vec![
        (vec![batch(0, 1, 0, 0)], "the first document is `batch`, a stream starts with `hello`"),
        (vec![hello(0), hello(0)], "a second `hello` on one connection"),
        (vec![hello(2), batch(1, 1, 0, 0)], "batch 1 before the connection's first (hello resumes at 2)"),
        (vec![hello(0), batch(4, 1, 0, 0), batch(4, 1, 1, 0)], "batch 4 after batch 4"),
        (vec![hello(0), batch(0, 1, 5, 0), batch(1, 1, 5, 0)], "thread 1's events from 5 were already sent (up to 5)"),
        (vec![hello(0), batch(0, 1, 0, 3)], "event id 3 is not declared (1 events are)"),
        (vec![hello(0), Message::End(End { seq: 0, threads: vec![] }), batch(0, 1, 0, 0)], "a `batch` after the stream's `end`"),
        (vec![hello(0), Message::Ack(1)], "`ack` is the collector's message, not a producer's"),
    ];
    for (msgs, want) in cases {
        let e = refused(&msgs);
        assert!(e.contains(want), "{want}: {e}");
    }
}
