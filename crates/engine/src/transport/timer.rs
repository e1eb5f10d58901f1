//! Transport timers: a transport owns its timers and names them with a [`TimerId`] of its own;
//! the simulator only schedules `Event::Timer { flow, timer }` and hands the id back.
//!
//! [`LazyTimer`] is the cancellation pattern every transport needs: restarting a timer (the RTO
//! on every ACK) only moves its deadline; at most one event is pending, and an event that fires
//! before the deadline re-arms itself to it. So restarting costs no event-queue operation, and a
//! stale event is recognised by its owner. Moving a deadline earlier than the pending event
//! schedules an earlier one; the later one is left in the queue and, when it comes, is known by
//! its time (not the pending one's) and does nothing.

use super::Outbox;
use crate::time::Time;

/// Which of a flow's timers fired (numbered by the transport that set it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimerId(pub u8);

/// The bookkeeping of a lazily cancelled timer, apart from how its events are scheduled (a
/// flow's [`LazyTimer`], a host's `host::HostTimer`): its deadline and the time of the one event
/// that counts. Each method returns the time of an event to schedule, when one is needed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lazy {
    deadline: Option<Time>,
    /// The event already in the queue that counts, if any.
    pending: Option<Time>,
}

impl Lazy {
    pub const fn new() -> Lazy {
        Lazy { deadline: None, pending: None }
    }

    #[inline]
    pub fn deadline(&self) -> Option<Time> {
        self.deadline
    }

    /// Expire at `at` (replacing any earlier setting).
    #[inline]
    #[must_use]
    pub fn set(&mut self, at: Time) -> Option<Time> {
        self.deadline = Some(at);
        self.arm(at)
    }

    /// Make sure an event is pending at or before `at`, deadline unchanged.
    #[inline]
    #[must_use]
    pub fn arm(&mut self, at: Time) -> Option<Time> {
        if self.pending.is_none_or(|e| e > at) {
            self.pending = Some(at);
            return Some(at);
        }
        None
    }

    #[inline]
    pub fn cancel(&mut self) {
        self.deadline = None;
    }

    /// An event came at `now`: (expired, event to schedule). Only the event at the pending time
    /// counts. One left behind when `arm` scheduled an earlier event does nothing: forgetting the
    /// pending event there let the next `arm` schedule a second event beside it, and the pair
    /// re-armed each other for the flow's life, one more pair each time a deadline moved earlier
    /// (an RTO recomputed on every ACK): the timer heap grew with the run.
    #[inline]
    #[must_use]
    pub fn fired(&mut self, now: Time) -> (bool, Option<Time>) {
        if !self.seen(now) {
            return (false, None);
        }
        match self.deadline {
            None => (false, None),
            Some(d) if now < d => (false, self.arm(d)),
            Some(_) => {
                self.deadline = None;
                (true, None)
            }
        }
    }

    /// An event came at `now`; whether it is the pending one (then no longer pending).
    #[inline]
    pub fn seen(&mut self, now: Time) -> bool {
        if self.pending != Some(now) {
            return false;
        }
        self.pending = None;
        true
    }
}

/// A flow's timer with lazy cancellation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LazyTimer {
    id: TimerId,
    lazy: Lazy,
}

impl LazyTimer {
    pub const fn new(id: TimerId) -> LazyTimer {
        LazyTimer { id, lazy: Lazy::new() }
    }

    #[inline]
    fn schedule(&self, at: Option<Time>, out: &mut Outbox) {
        if let Some(at) = at {
            out.timers.push((at, self.id));
        }
    }

    /// When the timer expires, if it is set.
    #[inline]
    pub fn deadline(&self) -> Option<Time> {
        self.lazy.deadline()
    }

    #[inline]
    pub fn is_set(&self) -> bool {
        self.lazy.deadline().is_some()
    }

    /// Expire at `at` (replacing any earlier setting); schedules an event only if none is pending
    /// at or before `at`.
    #[inline]
    pub fn set(&mut self, at: Time, out: &mut Outbox) {
        let e = self.lazy.set(at);
        self.schedule(e, out);
    }

    /// Make sure an event is pending at or before `at` without changing the deadline (timers
    /// whose owner re-checks its condition when the event comes, such as pacing).
    #[inline]
    pub fn arm(&mut self, at: Time, out: &mut Outbox) {
        let e = self.lazy.arm(at);
        self.schedule(e, out);
    }

    #[inline]
    pub fn cancel(&mut self) {
        self.lazy.cancel();
    }

    /// This timer's event came at `now`. True: the timer expired (and is now unset); false: it
    /// was cancelled, moved later (and has re-armed itself), or the event was superseded.
    #[inline]
    pub fn fired(&mut self, now: Time, out: &mut Outbox) -> bool {
        let (expired, e) = self.lazy.fired(now);
        self.schedule(e, out);
        expired
    }

    /// An event of this timer came at `now`; the owner re-checks by itself (see
    /// [`LazyTimer::arm`]).
    #[inline]
    pub fn event_seen(&mut self, now: Time) {
        self.lazy.seen(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restarting_costs_no_event_and_stale_events_rearm() {
        let mut out = Outbox::default();
        let mut t = LazyTimer::new(TimerId(3));
        t.set(Time(100), &mut out);
        t.set(Time(150), &mut out);
        t.set(Time(200), &mut out);
        assert_eq!(out.timers, vec![(Time(100), TimerId(3))], "one event for three settings");
        out.timers.clear();
        assert!(!t.fired(Time(100), &mut out), "moved later: not expired");
        assert_eq!(out.timers, vec![(Time(200), TimerId(3))]);
        out.timers.clear();
        // An earlier setting needs an earlier event.
        t.set(Time(120), &mut out);
        assert_eq!(out.timers, vec![(Time(120), TimerId(3))]);
        assert!(t.fired(Time(120), &mut out));
        assert!(!t.is_set());
        // The stale event at 200 finds nothing.
        assert!(!t.fired(Time(200), &mut out));
        t.set(Time(300), &mut out);
        t.cancel();
        assert!(!t.fired(Time(300), &mut out));
    }

    /// An event left behind by an earlier setting neither fires the timer nor schedules a second
    /// event beside the pending one (before the fix it did, and the two re-armed each other for
    /// the flow's life: a 6 s incast of the PPT reproduction ran 130 M events instead of 73 M).
    #[test]
    fn a_superseded_event_schedules_nothing() {
        let mut out = Outbox::default();
        let mut t = LazyTimer::new(TimerId(1));
        t.set(Time(200), &mut out);
        t.set(Time(100), &mut out); // the event at 200 is now stale
        assert_eq!(out.timers, vec![(Time(200), TimerId(1)), (Time(100), TimerId(1))]);
        out.timers.clear();
        assert!(t.fired(Time(100), &mut out));
        t.set(Time(300), &mut out);
        assert_eq!(out.timers, vec![(Time(300), TimerId(1))]);
        out.timers.clear();
        // The stale event at 200: not expired, and the event at 300 is still the pending one.
        assert!(!t.fired(Time(200), &mut out));
        assert!(out.timers.is_empty(), "no second event at 300");
        assert!(t.fired(Time(300), &mut out));
        // Two events of one instant (a stale one and the live one): the first fires the timer.
        t.set(Time(500), &mut out);
        t.set(Time(400), &mut out);
        assert!(t.fired(Time(400), &mut out));
        t.set(Time(500), &mut out);
        out.timers.clear();
        assert!(t.fired(Time(500), &mut out));
        assert!(!t.fired(Time(500), &mut out));
        assert!(out.timers.is_empty());
        // A re-checking owner's stale event leaves the pending one in place.
        let mut p = LazyTimer::new(TimerId(2));
        p.arm(Time(50), &mut out);
        p.arm(Time(20), &mut out);
        p.event_seen(Time(20));
        p.arm(Time(60), &mut out);
        out.timers.clear();
        p.event_seen(Time(50)); // stale
        p.arm(Time(60), &mut out);
        assert!(out.timers.is_empty(), "the event at 60 is still pending");
    }
}
