//! A port's setup in words, one field per aspect (`fabricsim compare`'s header lines and
//! compare.csv's port columns).

use super::{Admission, Amount, MarkAt, Marking, Order, QueueSpec, Sched, MAX_QUEUES};

/// The aspects of a port setup a comparison states.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Described {
    /// "8", or "2 (classes 0 | 1-7)" when classes do not map one to one.
    pub queues: String,
    /// "strict", "wrr 10:1", "drr 1:1 (1500 B)".
    pub scheduler: String,
    /// "120000B", "100pkt", "unlimited"; per-queue limits after a slash; "+ device 100pkt".
    pub buffer: String,
    /// "none", "ecn per queue 65pkt", "ecn per port 65pkt", "red 20pkt-60pkt".
    pub marking: String,
    /// "droptail", "pushout", "pfabric", "trim 64B", with "+ selective drop 24000B",
    /// "+ random drop 0.1 above 16000B".
    pub admission: String,
}

/// "65pkt", "97500B".
pub fn amount(a: Amount) -> String {
    match a {
        Amount::Packets(n) => format!("{n}pkt"),
        Amount::Bytes(b) => format!("{b}B"),
    }
}

/// Per-queue values: one when all queues have the same, else the list.
fn per_queue(v: &[Option<Amount>]) -> String {
    let show = |a: &Option<Amount>| a.map_or("off".to_string(), amount);
    if v.iter().all(|x| *x == v[0]) {
        show(&v[0])
    } else {
        v.iter().map(show).collect::<Vec<_>>().join("/")
    }
}

fn weights(w: &[u32]) -> String {
    w.iter().map(u32::to_string).collect::<Vec<_>>().join(":")
}

impl QueueSpec {
    /// The setup in words.
    pub fn describe(&self) -> Described {
        let n = self.queues as usize;
        let sched = match self.sched {
            _ if n == 1 => "fifo".to_string(),
            Sched::Strict => "strict".to_string(),
            Sched::Wrr { weights: w } => format!("wrr {}", weights(&w[..n])),
            Sched::Drr { weights: w, quantum } => format!("drr {} ({quantum} B)", weights(&w[..n])),
        };
        let sched = if self.order == Order::FlowRr { format!("{sched}, flows round robin") } else { sched };
        let mut buffer = self.limit.map_or("unlimited".to_string(), amount);
        if self.queue_limits[..n].iter().any(Option::is_some) {
            buffer = format!("{buffer} (queues {})", per_queue(&self.queue_limits[..n]));
        }
        if let Some(d) = self.device_queue {
            buffer = format!("{buffer} + device {d}pkt");
        }
        let marking = match self.marking {
            Marking::None => "none".to_string(),
            Marking::Threshold { queue, port, at } => {
                let mut parts = Vec::new();
                if queue[..n].iter().any(Option::is_some) {
                    parts.push(format!("ecn per queue {}", per_queue(&queue[..n])));
                }
                if port[..n].iter().any(Option::is_some) {
                    parts.push(format!("ecn per port {}", per_queue(&port[..n])));
                }
                let end = if at == MarkAt::End { " at end of service" } else { "" };
                format!("{}{end}", parts.join(", "))
            }
            Marking::Red(r) => format!("red {}-{}", amount(r.min_th), amount(r.max_th)),
        };
        let mut admission = match self.admission {
            Admission::DropTail => "droptail".to_string(),
            Admission::PushOut => "pushout".to_string(),
            Admission::PFabric => "pfabric".to_string(),
            Admission::Trim { header_bytes, .. } => format!("trim {header_bytes}B"),
        };
        if let Some(k) = self.selective_drop {
            admission = format!("{admission} + selective drop {}", amount(k));
        }
        if let Some(r) = self.random_drop {
            admission = format!("{admission} + random drop {} above {}", r.probability, amount(r.above));
        }
        debug_assert!(n <= MAX_QUEUES);
        Described { queues: n.to_string(), scheduler: sched, buffer, marking, admission }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_and_a_marking_priority_port() {
        let d = QueueSpec::fifo(Some(Amount::Bytes(120_000))).describe();
        assert_eq!((d.queues.as_str(), d.scheduler.as_str(), d.buffer.as_str(), d.marking.as_str(), d.admission.as_str()), ("1", "fifo", "120000B", "none", "droptail"));
        let mut q = QueueSpec::ecn(None, Amount::Packets(65));
        q.queues = 8;
        if let Marking::Threshold { queue, .. } = &mut q.marking {
            queue[1..].fill(Some(Amount::Packets(59)));
        }
        q.selective_drop = Some(Amount::Bytes(24_000));
        let d = q.describe();
        assert_eq!((d.queues.as_str(), d.scheduler.as_str(), d.buffer.as_str()), ("8", "strict", "unlimited"));
        assert_eq!(d.marking, "ecn per queue 65pkt/59pkt/59pkt/59pkt/59pkt/59pkt/59pkt/59pkt");
        assert_eq!(d.admission, "droptail + selective drop 24000B");
    }
}
