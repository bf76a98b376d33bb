//! The acknowledgement rule of `--listen ... --nats URL`: a producer's
//! batch is acknowledged once JetStream acknowledged its publish (and every
//! publish before it on that connection) *and* the store thread made it
//! durable (with no `--store`: received).  The store thread gives its acks
//! to the gate as to any [`AckSink`]; the publisher gives JetStream's; the
//! producer gets the smaller.

use std::sync::{Arc, Mutex, MutexGuard};

use crate::acks::{AckSink, Acks};

struct State {
    out: Acks,
    /// The store thread's newest ack (None before the hello's).
    local: Option<i64>,
    /// Every batch up to this one, and every document before it, is in
    /// JetStream.
    published: i64,
    /// An `end` received: nothing is acknowledged until JetStream and
    /// the store hold it (a producer drops its `end` at the first ack
    /// that follows it), then the last ack goes again.
    end: Option<EndWait>,
    sent: Option<i64>,
}

#[derive(Default, Clone, Copy)]
struct EndWait {
    published: bool,
    stored: bool,
}

/// Shared by the store thread (as the connection's [`AckSink`]) and the
/// publisher.
#[derive(Clone)]
pub struct Gate(Arc<Mutex<State>>);

impl Gate {
    /// `resume`: the hello's first batch; the ones before were acknowledged
    /// by a collector under the same rule.
    pub fn new(out: Acks, resume: i64) -> Gate {
        Gate(Arc::new(Mutex::new(State {
            out,
            local: None,
            published: resume - 1,
            end: None,
            sent: None,
        })))
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// JetStream stored every document of the connection up to batch `seq`.
    pub fn published(&self, seq: i64) {
        let mut s = self.state();
        s.published = s.published.max(seq);
        s.send();
    }

    /// The connection's `end` is queued for publishing (and on its way to
    /// the store thread).
    pub fn end_queued(&self) {
        self.state().end = Some(EndWait::default());
    }

    /// ... JetStream stored it.
    pub fn end_published(&self) {
        self.end_done(|e| e.published = true);
    }

    /// ... the store thread made it durable.
    pub fn end_stored(&self) {
        self.end_done(|e| e.stored = true);
    }

    fn end_done(&self, f: impl FnOnce(&mut EndWait)) {
        let mut s = self.state();
        let Some(e) = s.end.as_mut() else { return };
        f(e);
        if e.published && e.stored {
            s.end = None;
            s.sent = None; // the same ack again: this one follows the end
            s.send();
        }
    }

    /// A document JetStream cannot take (larger than its max_payload): the
    /// producer is refused, so that it stops rather than resending forever.
    pub fn refuse(&self, msg: &str) {
        self.state().out.refuse(msg);
    }
}

impl State {
    fn send(&mut self) {
        let Some(local) = self.local else { return };
        if self.end.is_some() {
            return;
        }
        let ack = local.min(self.published);
        if self.sent.is_none_or(|s| ack > s) {
            self.sent = Some(ack);
            self.out.ack(ack);
        }
    }
}

impl AckSink for Gate {
    fn ack(&mut self, seq: i64) {
        let mut s = self.state();
        s.local = Some(s.local.map_or(seq, |l| l.max(seq)));
        s.send();
    }
    fn pending(&self) -> bool {
        self.state().out.pending()
    }
    fn flush(&mut self) {
        self.state().out.flush()
    }
    fn refuse(&mut self, msg: &str) {
        self.state().out.refuse(msg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Default)]
    struct Seen(Arc<Mutex<Vec<i64>>>);
    impl AckSink for Seen {
        fn ack(&mut self, seq: i64) {
            self.0.lock().unwrap().push(seq)
        }
        fn pending(&self) -> bool {
            false
        }
        fn flush(&mut self) {}
        fn refuse(&mut self, _: &str) {}
    }

    #[test]
    fn the_smaller_of_local_and_published() {
        let seen = Seen::default();
        let g = Gate::new(Box::new(seen.clone()), 0);
        let mut local = g.clone();
        local.ack(-1); // the hello: nothing stored
        assert_eq!(*seen.0.lock().unwrap(), vec![-1]);
        local.ack(5); // stored, not published
        g.published(3);
        g.published(7);
        assert_eq!(*seen.0.lock().unwrap(), vec![-1, 3, 5]);
        local.ack(9);
        assert_eq!(*seen.0.lock().unwrap(), vec![-1, 3, 5, 7]);
    }

    #[test]
    fn nothing_before_the_store_threads_hello_ack_or_while_the_end_waits() {
        let seen = Seen::default();
        let g = Gate::new(Box::new(seen.clone()), 4);
        g.published(6);
        assert!(seen.0.lock().unwrap().is_empty());
        let mut local = g.clone();
        local.ack(9); // a restarted store held more than JetStream had
        assert_eq!(*seen.0.lock().unwrap(), vec![6]);
        g.end_queued();
        g.published(9);
        local.ack(9);
        assert_eq!(*seen.0.lock().unwrap(), vec![6]);
        g.end_published();
        assert_eq!(*seen.0.lock().unwrap(), vec![6]);
        g.end_stored();
        assert_eq!(*seen.0.lock().unwrap(), vec![6, 9]);
    }

    #[test]
    fn the_ack_after_the_end_goes_even_when_it_is_not_newer() {
        let seen = Seen::default();
        let g = Gate::new(Box::new(seen.clone()), 0);
        let mut local = g.clone();
        local.ack(2);
        g.published(2);
        g.end_queued();
        g.end_stored();
        local.ack(2);
        g.end_published();
        assert_eq!(*seen.0.lock().unwrap(), vec![-1, 2, 2]);
    }
}
