//! The loss- and delay-based variants at datacenter scale (issue 19): for each, where its
//! specification makes it depart from Reno at windows of 10–200 segments and RTTs of 50–100 µs,
//! a test that drives it through the hooks with a scripted ACK clock and checks the window its
//! specification gives; where the specification makes it equal Reno there, a test that it does
//! (the reasons are in docs/CONGESTION_CONTROL.md, "At datacenter RTTs").
//!
//! The clock: a sender that always has cwnd segments in flight, one ACK per segment spaced
//! RTT/cwnd, each with an RTT sample; a "round" is the cwnd ACKs of one window. A loss is fast
//! recovery as the TCP core runs it with SACK (ssthresh from the algorithm, cwnd = ssthresh, then
//! COMPLETE_CWR one RTT later).

use super::bbr::Mode;
use super::*;
use crate::time::Time;

const MSS: u64 = 1000;

struct Clock {
    t: Tcb,
}

impl Clock {
    fn new(cwnd: u32, ssthresh: u32) -> Clock {
        let mut t = tcb(cwnd, ssthresh);
        t.snd_nxt = cwnd as u64 * MSS;
        t.in_flight = t.snd_nxt;
        Clock { t }
    }

    /// One ACK of one segment with RTT sample `rtt`, hooks in the core's order.
    fn ack<C: CongestionOps>(&mut self, cc: &mut C, rtt: Time) {
        let t = &mut self.t;
        t.now = t.now + Time(rtt.0 / t.cwnd.max(1) as u64);
        t.snd_una += MSS;
        t.in_flight = t.snd_nxt - t.snd_una;
        t.srtt = Some(rtt);
        t.min_rtt = Some(t.min_rtt.map_or(rtt, |m| m.min(rtt)));
        cc.in_ack_event(t, AckEvent { ece: false, acked_bytes: MSS });
        cc.pkts_acked(t, 1, Some(rtt));
        cc.cong_avoid(t, 1);
        if std::mem::take(&mut t.request_cwr) {
            t.ssthresh = cc.ssthresh(t);
            t.cwnd = t.cwnd.min(t.ssthresh);
            cc.set_state(t, CaState::Cwr);
        }
        t.snd_nxt = t.snd_nxt.max(t.snd_una + t.cwnd as u64 * MSS);
    }

    /// `n` ACKs at `rtt`.
    fn acks<C: CongestionOps>(&mut self, cc: &mut C, n: u32, rtt: Time) {
        for _ in 0..n {
            self.ack(cc, rtt);
        }
    }

    /// `n` rounds (a window of ACKs each, the window at the round's start), RTT per round.
    fn rounds<C: CongestionOps>(&mut self, cc: &mut C, n: u32, mut rtt: impl FnMut(u32) -> Time) {
        for k in 0..n {
            let w = self.t.cwnd;
            let r = rtt(k);
            self.acks(cc, w, r);
        }
    }

    /// Fast recovery of one loss (RFC 6675 cwnd = ssthresh), COMPLETE_CWR one RTT later.
    fn loss<C: CongestionOps>(&mut self, cc: &mut C, rtt: Time) {
        let t = &mut self.t;
        t.ssthresh = cc.ssthresh(t);
        cc.set_state(t, CaState::Recovery);
        t.cwnd = t.ssthresh;
        t.cwnd_cnt = 0;
        t.now = t.now + rtt;
        cc.cwnd_event(t, CwndEvent::CompleteCwr);
    }
}

fn us(v: u64) -> Time {
    Time::from_us(v)
}

/// Reno's window after the same script, for comparison.
fn reno(cwnd: u32, ssthresh: u32, script: impl Fn(&mut Clock, &mut NewReno)) -> u32 {
    let mut c = Clock::new(cwnd, ssthresh);
    script(&mut c, &mut NewReno);
    c.t.cwnd
}

/// Runs `script` on `cc` and on Reno from the same state, ACK by ACK, and checks the windows agree
/// after every ACK of the script (the script calls `ack` only).
fn same_as_reno<C: CongestionOps>(mut cc: C, cwnd: u32, ssthresh: u32, rtts: &[(u32, Time)]) {
    let (mut a, mut b) = (Clock::new(cwnd, ssthresh), Clock::new(cwnd, ssthresh));
    cc.init(&mut a.t);
    let mut n = 0;
    for &(count, rtt) in rtts {
        for _ in 0..count {
            a.ack(&mut cc, rtt);
            b.ack(&mut NewReno, rtt);
            n += 1;
            assert_eq!((a.t.cwnd, a.t.ssthresh), (b.t.cwnd, b.t.ssthresh), "{}: after ACK {n}", cc.name());
        }
    }
    // And a loss cuts as Reno's does.
    let before = a.t.cwnd;
    a.loss(&mut cc, us(100));
    b.loss(&mut NewReno, us(100));
    assert_eq!(a.t.cwnd, b.t.cwnd, "{}: loss at {before}", cc.name());
}

/// A slow start from 10 across ssthresh 40 into congestion avoidance, at 60 µs, then 80 µs.
const SS_THEN_CA: &[(u32, Time)] = &[(300, Time::from_us(60)), (500, Time::from_us(80))];

#[test]
fn newreno_reference() {
    // The clock itself: 10 rounds at cwnd 100 add 10; a loss halves.
    let mut c = Clock::new(100, 50);
    let mut r = NewReno;
    let start = c.t.now;
    c.rounds(&mut r, 10, |_| us(100));
    assert_eq!(c.t.cwnd, 110);
    let elapsed = (c.t.now - start).0 as i64 - us(1000).0 as i64;
    assert!(elapsed.abs() < 1000, "10 rounds of 100 µs (to a nanosecond)");
    c.loss(&mut r, us(100));
    assert_eq!(c.t.cwnd, 55);
}

// ---- equal to Reno at datacenter RTTs, by their specifications ----

#[test]
fn hybla_is_reno_below_rtt0() {
    // ρ = max(RTT/RTT0, 1) with RTT0 = 25 ms: 1 at 60–80 µs, and SS +2^ρ − 1 = 1 per ACK, CA
    // +ρ²/cwnd = 1/cwnd are Reno's rules.
    same_as_reno(hybla::Hybla::default(), 10, 40, SS_THEN_CA);
    same_as_reno(hybla::Hybla::default(), 4, 6, &[(60, us(60))]);
}

#[test]
fn htcp_is_reno_within_delta_l_of_a_loss() {
    // α = 1 for Δ ≤ Δ_L = 1 s, and β = 0.5 while min RTT ≤ 10 ms.
    same_as_reno(htcp::Htcp::default(), 10, 40, SS_THEN_CA);
    same_as_reno(htcp::Htcp::default(), 4, 6, &[(60, us(60))]);
}

#[test]
fn bic_is_reno_at_or_below_low_window() {
    // cwnd ≤ low_window = 14: Reno increase and a Reno (1/2) cut.
    same_as_reno(bic::Bic::new(bic::BicParams::default()), 4, 6, &[(60, us(60))]);
}

#[test]
fn illinois_is_reno_below_win_thresh() {
    // cwnd < win_thresh = 15: α = 1, β = 1/2 whatever the delay.
    same_as_reno(illinois::Illinois::default(), 4, 6, &[(40, us(60)), (40, us(90))]);
}

#[test]
fn scalable_and_highspeed_grow_as_reno_at_small_windows() {
    // Scalable: +1 per min(cwnd, 50) ACKs is Reno's +1 per cwnd up to 50 segments (its cut stays
    // 1/8, tested below). HighSpeed: Reno up to Low_Window = 38, the cut included.
    let script = |c: &mut Clock, cc: &mut dyn FnMut(&mut Clock)| cc(c);
    let _ = script;
    let mut s = Clock::new(10, 20);
    let mut sc = scalable::Scalable::default();
    s.acks(&mut sc, 300, us(60));
    assert_eq!(s.t.cwnd, reno(10, 20, |c, r| c.acks(r, 300, us(60))));
    assert!(s.t.cwnd <= 50);
    same_as_reno(highspeed::HighSpeed::default(), 4, 8, &[(120, us(60))]);
}

#[test]
fn cdg_backs_off_almost_never_on_microsecond_gradients() {
    // P(back-off per round) = 1 − exp(−g·42/2^20), g in µs summed over 8 rounds: an RTT rising
    // 2 µs per round gives g = 16 µs, P = 6.4·10⁻⁴; the same shape in ms (2 ms per round) gives
    // P = 0.47. 499 gradients: expected 0.32 back-offs against 236.
    let run = |step_us: u64| {
        let mut c = Clock::new(20, 10);
        c.t.cwnd_limited = false; // hold the window: only the delay gradient changes
        // use_ineff out of the way: count every back-off the probability allows.
        let mut k = Knobs::default();
        k.0[2] = Some(1e6);
        let mut cdg = cdg::Cdg::with_knobs(11, &k);
        cdg.init(&mut c.t);
        c.rounds(&mut cdg, 500, |k| us(60 + step_us * k as u64));
        cdg.backoffs
    };
    let micro = run(2);
    let milli = run(2000);
    assert!(micro <= 3, "{micro} back-offs at µs gradients");
    assert!((150..=320).contains(&milli), "{milli} back-offs at ms gradients");
    // Growth is Reno's, and with no back-off the shadow window equals cwnd: a loss halves.
    same_as_reno(cdg::Cdg::new(5), 10, 40, &[(300, us(60)), (200, us(60))]);
}

#[test]
fn ledbat_with_its_default_target_is_reno_like() {
    // RFC 6817: off_target = (TARGET − queuing delay)/TARGET with TARGET 100 ms ≈ 1 when queues
    // hold microseconds: +GAIN·off_target per RTT ≈ +1, and a loss halves.
    let mut c = Clock::new(100, 50);
    let mut l = ledbat::Ledbat::new(ledbat::LedbatParams::default());
    c.acks(&mut l, 4, us(50));
    let w0 = c.t.cwnd;
    c.rounds(&mut l, 10, |_| us(70)); // 20 µs of queueing: off_target = 0.9998
    let grew = c.t.cwnd - w0;
    assert!((9..=10).contains(&grew), "+{grew} in 10 RTTs");
    c.loss(&mut l, us(70));
    assert_eq!(c.t.cwnd, (w0 + grew) / 2);
}

// ---- departing from Reno at datacenter scale ----

#[test]
fn bic_binary_search_above_low_window() {
    // A loss at W_max = 200; cwnd 100 in congestion avoidance: (W_max − cwnd)/B = 25 > 16, so
    // the increase is max_increment: cnt = ⌊cwnd/16⌋ = 6 ACKs per segment, divided by the ACK
    // ratio estimate (Linux's delayed_ack, 31/16 with one segment per ACK: its 1/16 EWMA stops at
    // 31): cnt = ⌊6·16/31⌋ = 3 for 96 ≤ cwnd < 128. 60 ACKs: +20. Reno: 60 ACKs of a 100-segment
    // window add nothing.
    let mut b = bic::Bic::new(bic::BicParams::default());
    assert_eq!(b.ssthresh(&tcb(200, 300)), 159); // 200·819/1024
    let mut c = Clock::new(100, 100);
    c.acks(&mut b, 60, us(60));
    assert_eq!(c.t.cwnd, 120);
    assert_eq!(reno(100, 100, |c, r| c.acks(r, 60, us(60))), 100);
    // Near W_max the search slows: cwnd 196, (200 − 196)/4 = 1 → smooth part, cnt = ⌊196·20/4⌋ = 980,
    // ⌊980·16/31⌋ = 505 ACKs per segment: 196 ACKs add nothing (Reno: +1).
    let mut c = Clock::new(196, 100);
    c.acks(&mut b, 196, us(60));
    assert_eq!(c.t.cwnd, 196);
    // The cut is β = 819/1024, not 1/2.
    c.loss(&mut b, us(60));
    assert_eq!(c.t.cwnd, 196 * 819 / 1024);
}

#[test]
fn cubic_keeps_seventy_percent_and_grows_reno_friendly_at_microsecond_rtts() {
    // RFC 9438: after a loss at 100, cwnd = β·W_max = 70 and K = ∛(100·0.3/0.4) = 4.2 s; 1 ms
    // later W_cubic is still ≈ 70.0, so the Reno-friendly estimate (§4.3) leads: +1 per
    // cwnd·(1 + β)/(3(1 − β)) = 1.889·cwnd ACKs, ≈ 0.53 per RTT. Ten 100 µs rounds (≈ 720 ACKs)
    // add 5 (720/(1.889·72) = 5.3, the window lagging the estimate by under one segment).
    let mut cu = cubic::Cubic::new(cubic::CubicParams::default());
    let mut c = Clock::new(100, 1000);
    c.t.min_rtt = Some(us(100));
    c.loss(&mut cu, us(100));
    assert_eq!(c.t.cwnd, 70);
    c.rounds(&mut cu, 10, |_| us(100));
    assert!((74..=75).contains(&c.t.cwnd), "{}", c.t.cwnd);
    // Reno: 50, then +1 per round.
    let r = reno(100, 1000, |c, r| {
        c.loss(r, us(100));
        c.rounds(r, 10, |_| us(100));
    });
    assert_eq!(r, 60);
}

#[test]
fn highspeed_follows_its_response_function_above_38() {
    // RFC 3649 App. B row w = 118: a = 2, b = 0.44. One window of ACKs adds 2 (Reno 1); a loss
    // keeps w·(1 − b(w)) = 118·0.559 = 65.96 → 65 (Reno 59).
    let mut h = highspeed::HighSpeed::default();
    let mut c = Clock::new(118, 50);
    c.acks(&mut h, 118, us(80));
    assert_eq!(c.t.cwnd, 120);
    assert_eq!(reno(118, 50, |c, r| c.acks(r, 118, us(80))), 119);
    assert_eq!(h.ssthresh(&tcb(118, 50)), 65);
}

#[test]
fn htcp_alpha_after_delta_l() {
    // Δ = 5 s without loss: α_raw = 1 + 10·4 + (4/2)² = 45, scaled by min RTT/100 ms clamped to
    // 0.1 at 100 µs, ×2(1 − β) = 1: α = 4.5 per RTT. One window of 100 ACKs adds 4 (Σ 4.5/cwnd
    // over cwnd 100…104 = 4.4); Reno adds 1. At Δ = 0.5 s it is Reno's +1.
    let run = |delta: Time| {
        let mut h = htcp::Htcp::default();
        let mut c = Clock::new(100, 50);
        h.init(&mut c.t);
        c.t.now = delta;
        c.acks(&mut h, 100, us(100));
        c.t.cwnd
    };
    assert_eq!(run(Time::from_ms(5000)), 104);
    assert_eq!(run(Time::from_ms(500)), 101);
    assert_eq!(reno(100, 50, |c, r| c.acks(r, 100, us(100))), 101);
}

#[test]
fn illinois_step_and_cut_follow_the_queuing_delay() {
    // cwnd 100, base RTT 50 µs, max 150 µs (dm = 100 µs, d1 = 1 µs). A round with mean queuing
    // delay da ≤ d1: α = α_max = 10 per RTT and β = β_min = 1/8. A round at the maximum delay
    // (da = dm): α = α_min = 0.3 and β = β_max = 1/2.
    let mut il = illinois::Illinois::default();
    let mut c = Clock::new(100, 50);
    il.init(&mut c.t);
    c.ack(&mut il, us(150));
    c.acks(&mut il, 99, us(50)); // da = (150 + 99·50)/100 − 50 = 1 µs = d1
    assert_eq!(il.alpha_beta(), (10.0, 0.125));
    let w = c.t.cwnd;
    c.rounds(&mut il, 1, |_| us(50));
    let grew = c.t.cwnd - w;
    assert!((9..=10).contains(&grew), "+{grew} in one RTT at α = 10 (Reno +1)");
    assert_eq!(il.ssthresh(&c.t), c.t.cwnd - c.t.cwnd / 8);
    // Rounds at 150 µs: da = dm.
    c.rounds(&mut il, 2, |_| us(150));
    let (a, b) = il.alpha_beta();
    assert!((a - 0.3).abs() < 1e-9 && b == 0.5, "{a} {b}");
    let w = c.t.cwnd;
    c.rounds(&mut il, 3, |_| us(150));
    assert!(c.t.cwnd - w <= 1, "+{} in 3 RTTs at α = 0.3", c.t.cwnd - w);
}

#[test]
fn scalable_grows_two_percent_per_rtt_and_cuts_an_eighth() {
    // Above 50 segments +1 per 50 ACKs: 200 ACKs at cwnd 200 add 4 (Reno 1); a loss keeps 7/8.
    let mut s = scalable::Scalable::default();
    let mut c = Clock::new(200, 100);
    c.acks(&mut s, 200, us(60));
    assert_eq!(c.t.cwnd, 204);
    assert_eq!(reno(200, 100, |c, r| c.acks(r, 200, us(60))), 201);
    c.loss(&mut s, us(60));
    assert_eq!(c.t.cwnd, 204 - 204 / 8);
    // Even at 40 segments the cut is an eighth: 35 (Reno 20).
    assert_eq!(s.ssthresh(&tcb(40, 10)), 35);
}

#[test]
fn veno_backlog_decides_growth_and_cut() {
    // BaseRTT 50 µs (+1 µs, Linux's guard). RTT 50 µs: backlog N = 0 < β = 3 → Reno growth and a
    // random-loss cut to 4/5 (Reno 1/2). RTT 60 µs at cwnd 100: N = 100·(1 − 51/61) = 16.4 ≥ 3 →
    // +1 every other window and a 1/2 cut.
    let warm = |v: &mut veno::Veno, c: &mut Clock, rtt: u64| {
        v.pkts_acked(&mut c.t, 1, Some(us(50)));
        v.pkts_acked(&mut c.t, 1, Some(us(rtt)));
        v.pkts_acked(&mut c.t, 1, Some(us(rtt)));
    };
    let mut v = veno::Veno::default();
    let mut c = Clock::new(100, 50);
    warm(&mut v, &mut c, 50);
    c.acks(&mut v, 100, us(50));
    assert_eq!(c.t.cwnd, 101);
    c.loss(&mut v, us(50));
    assert_eq!(c.t.cwnd, 101 * 4 / 5);

    let mut v = veno::Veno::default();
    let mut c = Clock::new(100, 50);
    warm(&mut v, &mut c, 60);
    // Windows of 100: the counter passes cwnd after 101 ACKs (toggle), +1 at the second toggle
    // (ACK 202), the third toggle at ACK 304; 400 ACKs: 101. Reno: 100 → 103.
    c.acks(&mut v, 400, us(60));
    assert_eq!(c.t.cwnd, 101);
    assert_eq!(reno(100, 50, |c, r| c.acks(r, 400, us(60))), 103);
    c.loss(&mut v, us(60));
    assert_eq!(c.t.cwnd, 50);
}

#[test]
fn westwood_sets_the_window_to_the_measured_bdp_after_recovery() {
    // ACKs of 1000 B every 1 µs (8 Gb/s), min RTT 50 µs: after one 50 ms estimation interval
    // (TCP_WESTWOOD_RTT_MIN, RTTs being shorter) bw_est = 1 GB/s, so after recovery
    // cwnd = ssthresh = 1e9·50e-6/1000 = 50 segments, whatever the window was: from 80 Reno
    // gives 40, from 160 Reno gives 80.
    for (w, expect_reno) in [(80u32, 40u32), (160, 80)] {
        let mut ww = westwood::Westwood::default();
        let mut t = tcb(w, 10);
        t.cwnd_limited = false;
        for i in 0..=50_001u64 {
            t.now = Time::from_us(i);
            ww.pkts_acked(&mut t, 1, Some(us(50)));
        }
        assert!((ww.bandwidth() - 1e9).abs() < 1e9 * 1e-3, "{}", ww.bandwidth());
        let mut c = Clock { t };
        c.loss(&mut ww, us(50));
        assert_eq!((c.t.cwnd, c.t.ssthresh), (50, 50));
        assert_eq!(reno(w, 10, |c, r| c.loss(r, us(50))), expect_reno);
    }
}

#[test]
fn vegas_holds_two_to_four_segments_queued() {
    // BaseRTT 50 µs (+1). cwnd 101 at RTT 53 µs: diff = 101·(54 − 51)/51 = 5.9 > β = 4 → −1 per
    // round; at 51 µs: diff = 101·1/51 = 1.98 < α = 2 → +1. Reno: +1 per round regardless.
    let mut v = vegas::Vegas::new(vegas::VegasParams::default());
    let mut c = Clock::new(100, 50);
    v.init(&mut c.t);
    c.rounds(&mut v, 1, |_| us(50)); // diff 0: +1
    assert_eq!(c.t.cwnd, 101);
    c.rounds(&mut v, 3, |_| us(53));
    assert_eq!(c.t.cwnd, 98);
    assert_eq!(reno(100, 50, |c, r| c.rounds(r, 4, |_| us(53))), 104);
}

#[test]
fn yeah_fast_mode_is_scalable_and_its_cut_is_the_backlog() {
    // No queue (RTT = base): fast mode, +1 per min(cwnd, 100) ACKs: 200 ACKs at 200 add 2 (Reno
    // 1). The last backlog Q = 0, so the loss cut is the floor cwnd/8: 202 → 202 − 25 = 177.
    let mut y = yeah::Yeah::default();
    let mut c = Clock::new(200, 100);
    y.init(&mut c.t);
    c.acks(&mut y, 200, us(60));
    assert_eq!(c.t.cwnd, 202);
    c.loss(&mut y, us(60));
    assert_eq!(c.t.cwnd, 177);
}

#[test]
fn ledbat_at_a_datacenter_target_steers_by_queuing_delay() {
    // TARGET 50 µs, base 50 µs. Queuing 25 µs: off_target 1/2, +0.5 per RTT; queuing 100 µs:
    // off_target −1, −1 per RTT. Reno: +1 per RTT either way.
    let p = ledbat::LedbatParams { target: us(50), ..Default::default() };
    let mut l = ledbat::Ledbat::new(p);
    let mut c = Clock::new(100, 50);
    c.acks(&mut l, 4, us(50));
    let w0 = c.t.cwnd;
    c.rounds(&mut l, 8, |_| us(75));
    // ≈ +0.5 per RTT (0.5·cwnd/LEDBAT's fractional cwnd, just under): 8 RTTs add 3.9–4.
    assert!((w0 + 3..=w0 + 4).contains(&c.t.cwnd), "{w0} → {}", c.t.cwnd);
    let w1 = c.t.cwnd;
    c.rounds(&mut l, 8, |_| us(150));
    assert!((w1 - 8..=w1 - 7).contains(&c.t.cwnd), "{w1} → {}", c.t.cwnd);
}

#[test]
fn nv_caps_the_window_at_rate_times_min_rtt_plus_pad() {
    // Bottleneck 1 segment/µs, base RTT 50 µs (BDP 50): RTT = max(50, cwnd) µs. Above the BDP
    // the delivery rate stays 1 segment/µs (NV measures in_flight/RTT = (cwnd − 1)/cwnd), so
    // cwnd_by_slope = ⌊rate·min RTT⌋ = 49 and max_win = 49 + pad 10 = 59: NV stops growing there,
    // sets ssthresh = max_win and cuts 30 % of the excess (at least 2) at each re-evaluation.
    // Reno: +1 per round, 50 → 90 in 40 rounds.
    let mut nv = nv::Nv::default();
    let mut c = Clock::new(50, 40);
    nv.init(&mut c.t);
    let mut cuts = 0;
    for _ in 0..40 {
        for _ in 0..c.t.cwnd {
            let (before, d) = (c.t.cwnd, nv.decreases);
            let rtt = us(50).max(Time::from_us(c.t.cwnd as u64));
            c.ack(&mut nv, rtt);
            if nv.decreases > d {
                cuts += 1;
                assert_eq!(c.t.ssthresh, 59, "max_win");
                let gap = before - 59;
                let expect = if gap > 2 { before - ((gap as f64 * 0.3) as u32).max(2) } else { 59 };
                assert_eq!(c.t.cwnd, expect, "cut from {before}");
            }
        }
    }
    assert!(cuts >= 1, "{cuts} cuts");
    assert!(c.t.cwnd <= 62, "{}", c.t.cwnd);
    assert_eq!(reno(50, 40, |c, r| c.rounds(r, 40, |_| us(60))), 90);
}

#[test]
fn bbr_window_is_two_bdp_and_a_loss_does_not_halve_it() {
    // 10 Gb/s of 1500 B segments = 833 333 segments/s, RTprop 60 µs: BDP = 50 segments;
    // PROBE_BW cwnd = 2·BDP + 3 = 103 → 104 (even), +2 in the 1.25 phase.
    let mut b = bbr::Bbr::new(3);
    let mut t = tcb(10, u32::MAX);
    b.init(&mut t);
    let rate = |d: u64| RateSample { delivered: d, interval: us(60), acked_sacked: 10, rtt: Some(us(60)), ..RateSample::default() };
    let mut delivered = 0;
    for k in 0..400u64 {
        t.now = us(60 * (k + 1));
        t.in_flight = 40 * 1000; // below BDP: DRAIN ends at once
        let mut rs = rate(50);
        rs.prior_delivered = delivered;
        b.cong_control(&mut t, &rs);
        delivered += 10;
    }
    assert_eq!(b.mode, Mode::ProbeBw);
    assert!((b.max_bw() - 50.0 / 60e-6).abs() < 1.0);
    assert!(t.cwnd == 104 || t.cwnd == 106, "{}", t.cwnd);
    // A loss of 3 segments in Open: cwnd − 3, then grows back by the ACKed count — no halving.
    let w = t.cwnd;
    let mut rs = rate(50);
    rs.prior_delivered = delivered;
    rs.losses = 3;
    b.cong_control(&mut t, &rs);
    assert!(t.cwnd >= w - 3 && t.cwnd <= w + 2, "{w} → {}", t.cwnd);
}

#[test]
fn lp_departs_from_reno_on_delay_alone() {
    // With a flat delay there is no min–max range and LP is Reno ACK for ACK. When the delay
    // rises (a queue building 2 µs per round above 60 µs), the smoothed delay crosses
    // d_min + 15 % of the range and LP halves while Reno grows.
    same_as_reno(lp::Lp::default(), 10, 40, &[(800, us(60))]);
    let mut l = lp::Lp::default();
    let mut c = Clock::new(60, 40);
    c.rounds(&mut l, 2, |_| us(60));
    c.rounds(&mut l, 10, |k| us(60 + 2 * k as u64));
    assert!(l.early_reductions >= 1);
    assert!(c.t.cwnd <= 35, "{}", c.t.cwnd);
    assert_eq!(reno(60, 40, |c, r| c.rounds(r, 12, |_| us(60))), 72);
}
