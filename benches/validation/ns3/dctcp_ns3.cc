// ns-3 side of benches/validation/ns3_validate.py: two DCTCP experiments, written for fabricsim's
// cross-validation against an ns-3 build from source (ns-3-dev; see the Python script's header for
// the mapping of every setting onto the fabricsim scenario). Prints one JSON object of figures.
//
//   --scenario=b1        B1 (python/fabricsim/benchmarks/dctcp-16to1.toml): 17 hosts on one switch,
//                        10 Gb/s, 1 us links, step marking at 65 packets (RED with MinTh = MaxTh and
//                        QW = 1) and 250 packets at the port to h0, 16 long-lived DCTCP flows
//                        h1..h16 -> h0 starting at i us, MSS 1448 B with timestamps, IW 10, delayed
//                        ACK every 2nd segment, min RTO 10 ms; switch device queues of one packet.
//   --scenario=example   ns-3's examples/tcp/dctcp-example.cc, the same topology and settings: senders
//                        S1 (10) and S2 (20) on switch T1, S3 (10) and the receivers R2 (20) on T2,
//                        receiver R1 on T2; host links 1 Gb/s, T1-T2 10 Gb/s, all 10 us; RED with
//                        QW = 1, 2666-packet limit, marking (UseEcn, no hard drop), MinTh/MaxTh 50/150
//                        on T1-T2 (both directions) and 20/60 on every switch port towards a host;
//                        S2[i] -> R2[i], S1[i] -> R1, S3[i] -> R1, OnOff sources always on at 1 Gb/s
//                        of 1000 B writes, starting at i * 1 s / 20 + i * 5 ms (S2), i * 1 s / 10 +
//                        i * 5 ms (S1), i * 1 s / 10 + (i + 10) * 5 ms (S3); MSS 1448, delayed ACK 2;
//                        ns-3's defaults otherwise (device queues of 100 packets under the queue discs).
//   --time=S --warmup=S  simulated seconds; per-flow goodput and queue samples count after warmup.
//   --sample=US          queue sampling interval, microseconds (default 10).
//   --deviceQueue=P      the switches' device queue under the queue discs, packets (example only;
//                        default 100, ns-3's PointToPointNetDevice default: a packet waits there,
//                        unseen by RED, whenever the device is busy; B1 always uses 1).
//   --trace=FILE         per-packet trace of observed port --tracePort (0: the first) from
//                        --traceFrom until --traceUntil (seconds):
//                        one line per queue-disc enqueue (E), mark (M) and drop (D): time in ns,
//                        the event, the disc's and the device queue's packets after it, the sender's
//                        address, the TCP sequence number and flags (for finding where the two
//                        simulators first diverge; no figure depends on it).
//   --echoTrace=FILE     flow --echoFlow's (0-based) data arrivals at its receiver ("D time_ns seq
//                        payload ce") and ACK arrivals at its sender ("A time_ns ack ece") in the same
//                        time span (for replaying the receiver's echo; no figure depends on it).
//   --stateTrace=FILE    the same flow's sender state in the same span, a line per change ("S
//                        time_ns cong|ecn|cwnd|ssth|flight old new", "S time_ns rto old_us new_us")
//                        and per data segment sent ("T time_ns seq bytes flags"), for following
//                        its congestion states ACK by ACK (no figure depends on it).
//   --hostTrace=FILE     every TCP packet a host sends ("S") and every one its IP delivers up ("R") in
//                        the same span: "S|R time_ns flow seq ack flags payload ce", flow the
//                        0-based index of the sender the packet belongs to (for each flow's bursts
//                        and the ACKs that release them, all flows at once; no figure depends on it).
//
// Per flow (after the warm-up; the "echo" object of each flow): data segments reaching the
// receiver and those CE-marked; ACKs reaching the sender, with ECE, advancing its highest ACK or
// not (duplicates, with and without ECE), and the bytes advancing ACKs acknowledged, with ECE and
// in all; then the bytes the sender's TcpDctcp counted (CongestionEstimate: ECE and total, which
// include one segment for every duplicate ACK, TcpSocketBase::ProcessAck's PktsAcked(1)). Whole
// run: its timeouts (CongState entering CA_LOSS), fast recoveries (CA_RECOVERY), retransmissions,
// and its packets the observed queue discs dropped.
//
// Figures: per-flow goodput after the warm-up (bytes received by each sink) and each sender's mean
// congestion window, DCTCP alpha and smoothed RTT over the samples after it; for each observed
// queue disc its marks (all, and after the warm-up) and drops (QueueDisc stats) and its length,
// alone and with the device queue below it, sampled every --sample us after the warm-up (mean, p99), TCP retransmissions (TcpSocketBase "Retransmission"), packets serialized
// onto links (PhyTxEnd) and the wall time of Simulator::Run.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

using namespace ns3;

namespace
{
uint64_t g_hops = 0;
uint64_t g_retransmits = 0;

struct Watched
{
    std::string name;
    Ptr<QueueDisc> disc;
    Ptr<Queue<Packet>> device;  // the device queue below the disc
    std::vector<uint32_t> samples;
    // The same instants' totals waiting at the port: the disc and the device queue below it.
    std::vector<uint32_t> withDevice;
    uint32_t marksAtWarmup = 0;
};

Ptr<Queue<Packet>> DeviceQueue(Ptr<NetDevice> d)
{
    return DynamicCast<PointToPointNetDevice>(d)->GetQueue();
}

std::vector<Watched> g_watched;

// The per-packet trace (--trace): the observed port's disc and device queue.
FILE* g_trace = nullptr;
Time g_traceUntil;
Time g_traceFrom;
Ptr<QueueDisc> g_traceDisc;
Ptr<Queue<Packet>> g_traceDevice;

void TraceItem(char ev, Ptr<const QueueDiscItem> item)
{
    if (!g_trace || Simulator::Now() > g_traceUntil || Simulator::Now() < g_traceFrom) return;
    auto ip = DynamicCast<const Ipv4QueueDiscItem>(item);
    TcpHeader tcp;
    Ptr<Packet> c = item->GetPacket()->Copy();
    bool isTcp = c->PeekHeader(tcp) > 0;
    uint8_t src[4] = {0, 0, 0, 0};
    if (ip) ip->GetHeader().GetSource().Serialize(src);
    std::fprintf(g_trace, "%ld %c %u %u %u.%u.%u.%u %u %u %u\n", (long)Simulator::Now().GetNanoSeconds(), ev,
                 g_traceDisc->GetNPackets(), g_traceDevice ? g_traceDevice->GetNPackets() : 0, src[0], src[1], src[2], src[3],
                 isTcp ? tcp.GetSequenceNumber().GetValue() : 0, isTcp ? (unsigned)tcp.GetFlags() : 0, c->GetSize());
}

void TraceEnqueue(Ptr<const QueueDiscItem> item) { TraceItem('E', item); }
void TraceDrop(Ptr<const QueueDiscItem> item) { TraceItem('D', item); }
void TraceMark(Ptr<const QueueDiscItem> item, const char*) { TraceItem('M', item); }

void TxEnd(Ptr<const Packet>) { g_hops++; }

// Each sender's latest congestion window (bytes), DCTCP alpha and smoothed RTT (s), and their
// sums over the samples after the warm-up (per-flow means in the output).
struct SenderState
{
    double cwnd = 0, alpha = 1, srtt = 0;
    double sumCwnd = 0, sumAlpha = 0, sumSrtt = 0;
    uint64_t samples = 0;
    // Samples with the window below two segments and below one (ns-3 has no floor there).
    uint64_t belowTwo = 0, belowOne = 0;
    // Bytes the sender counted as acknowledged, and with ECE, in its alpha windows after the
    // warm-up (what its alpha estimates).
    uint64_t ackedBytes = 0, eceBytes = 0;
    // The echo as the packets show it, after the warm-up (see the header).
    uint64_t dataSegs = 0, ceSegs = 0, acks = 0, eceAcks = 0, advAcks = 0, advEceAcks = 0, advBytes = 0,
             advEceBytes = 0, dupAcks = 0, dupEceAcks = 0;
    uint32_t highAck = 0;  // the highest ACK number seen at the sender (whole run)
    // Whole run.
    uint64_t timeouts = 0, recoveries = 0, retransmits = 0, drops = 0;
};

std::vector<SenderState> g_senders;
// Each flow's sender address (every sender host has one flow) -> its index.
std::map<uint32_t, size_t> g_senderOf;
bool g_warm = false;

void Retransmitted(size_t i, Ptr<const Packet>, const TcpHeader&, const Address&, const Address&, Ptr<const TcpSocketBase>)
{
    g_retransmits++;
    g_senders[i].retransmits++;
}

void CongState(size_t i, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    g_senders[i].timeouts += now == TcpSocketState::CA_LOSS;
    g_senders[i].recoveries += now == TcpSocketState::CA_RECOVERY;
}

// A watched disc's drop, counted against the flow whose sender sent the packet.
void CountDrop(Ptr<const QueueDiscItem> item)
{
    auto ip = DynamicCast<const Ipv4QueueDiscItem>(item);
    if (!ip) return;
    auto it = g_senderOf.find(ip->GetHeader().GetSource().Get());
    if (it != g_senderOf.end()) g_senders[it->second].drops++;
}

// --echoTrace: flow --echoFlow's data arrivals at its receiver ("D time_ns seq payload ce") and
// ACK arrivals at its sender ("A time_ns ack ece"), from --traceFrom until --traceUntil.
FILE* g_echoTrace = nullptr;
size_t g_echoFlow = 0;
// Flow k (in the driver's order) starts k x this many nanoseconds later (--startJitterNs): a
// perturbation that changes no rule, to see how much the converged split owes to start-up phase.
uint64_t g_startJitterNs = 0;
Time g_echoFrom, g_echoUntil;

bool EchoTraced(size_t flow)
{
    return flow == g_echoFlow && Simulator::Now() >= g_echoFrom && Simulator::Now() <= g_echoUntil;
}

// --hostTrace: every TCP packet a host sends and receives, keyed by its flow's sender.
FILE* g_hostTrace = nullptr;

void HostPacket(char ev, const Ipv4Header& ip, Ptr<const Packet> p)
{
    if (!g_hostTrace || Simulator::Now() < g_echoFrom || Simulator::Now() > g_echoUntil) return;
    TcpHeader tcp;
    uint32_t hdr = p->PeekHeader(tcp);
    if (hdr == 0) return;
    auto it = g_senderOf.find(ip.GetSource().Get());
    if (it == g_senderOf.end()) it = g_senderOf.find(ip.GetDestination().Get());
    if (it == g_senderOf.end()) return;
    std::fprintf(g_hostTrace, "%c %ld %zu %u %u %u %u %d\n", ev, (long)Simulator::Now().GetNanoSeconds(), it->second,
                 tcp.GetSequenceNumber().GetValue(), tcp.GetAckNumber().GetValue(), (unsigned)tcp.GetFlags(),
                 p->GetSize() - hdr, ip.GetEcn() == Ipv4Header::ECN_CE);
}

void HostSent(const Ipv4Header& ip, Ptr<const Packet> p, uint32_t) { HostPacket('S', ip, p); }

// Every packet a host's IP delivers up: data at a receiver (keyed by its source, the sender) and
// ACKs at a sender (keyed by their destination).
void Delivered(const Ipv4Header& ip, Ptr<const Packet> p, uint32_t)
{
    HostPacket('R', ip, p);
    TcpHeader tcp;
    uint32_t hdr = p->PeekHeader(tcp);
    if (hdr == 0 || (tcp.GetFlags() & (TcpHeader::SYN | TcpHeader::FIN | TcpHeader::RST))) return;
    uint32_t payload = p->GetSize() - hdr;
    if (payload > 0)
    {
        auto it = g_senderOf.find(ip.GetSource().Get());
        if (it == g_senderOf.end()) return;
        SenderState& f = g_senders[it->second];
        if (g_echoTrace && EchoTraced(it->second))
            std::fprintf(g_echoTrace, "D %ld %u %u %d\n", (long)Simulator::Now().GetNanoSeconds(), tcp.GetSequenceNumber().GetValue(),
                         payload, ip.GetEcn() == Ipv4Header::ECN_CE);
        if (!g_warm) return;
        f.dataSegs++;
        f.ceSegs += ip.GetEcn() == Ipv4Header::ECN_CE;
        return;
    }
    auto it = g_senderOf.find(ip.GetDestination().Get());
    if (it == g_senderOf.end()) return;
    SenderState& f = g_senders[it->second];
    uint32_t ack = tcp.GetAckNumber().GetValue();
    bool ece = tcp.GetFlags() & TcpHeader::ECE;
    bool advances = ack > f.highAck;
    if (g_echoTrace && EchoTraced(it->second))
        std::fprintf(g_echoTrace, "A %ld %u %d\n", (long)Simulator::Now().GetNanoSeconds(), ack, (int)ece);
    if (g_warm)
    {
        f.acks++;
        f.eceAcks += ece;
        if (advances)
        {
            f.advAcks++;
            f.advEceAcks += ece;
            f.advBytes += ack - f.highAck;
            f.advEceBytes += ece ? ack - f.highAck : 0;
        }
        else
        {
            f.dupAcks++;
            f.dupEceAcks += ece;
        }
    }
    if (advances) f.highAck = ack;
}

void Cwnd(size_t i, uint32_t, uint32_t now) { g_senders[i].cwnd = now; }
void Srtt(size_t i, Time, Time now) { g_senders[i].srtt = now.GetSeconds(); }

void Alpha(size_t i, uint32_t ece, uint32_t total, double alpha)
{
    g_senders[i].alpha = alpha;
    if (g_warm)
    {
        g_senders[i].eceBytes += ece;
        g_senders[i].ackedBytes += total;
    }
}

// --stateTrace: the --echoFlow sender's state changes and data segments sent.
FILE* g_stateTrace = nullptr;

void State(size_t i, const char* what, long a, long b)
{
    if (g_stateTrace && EchoTraced(i))
        std::fprintf(g_stateTrace, "S %ld %s %ld %ld\n", (long)Simulator::Now().GetNanoSeconds(), what, a, b);
}
void StateCong(size_t i, TcpSocketState::TcpCongState_t a, TcpSocketState::TcpCongState_t b) { State(i, "cong", a, b); }
void StateEcn(size_t i, TcpSocketState::EcnState_t a, TcpSocketState::EcnState_t b) { State(i, "ecn", a, b); }
void StateCwnd(size_t i, uint32_t a, uint32_t b) { State(i, "cwnd", a, b); }
void StateSsth(size_t i, uint32_t a, uint32_t b) { State(i, "ssth", a, b); }
void StateFlight(size_t i, uint32_t a, uint32_t b) { State(i, "flight", a, b); }
void StateRto(size_t i, Time a, Time b) { State(i, "rto", (long)a.GetMicroSeconds(), (long)b.GetMicroSeconds()); }
void StateTx(size_t i, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (g_stateTrace && EchoTraced(i) && p->GetSize() > 0)
        std::fprintf(g_stateTrace, "T %ld %u %u %u\n", (long)Simulator::Now().GetNanoSeconds(), h.GetSequenceNumber().GetValue(),
                     p->GetSize(), (unsigned)h.GetFlags());
}

void Connected(size_t i, Ptr<Socket> s, const Address&, const Address&)
{
    if (g_stateTrace && i == g_echoFlow)
    {
        s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&StateCong, i));
        s->TraceConnectWithoutContext("EcnState", MakeBoundCallback(&StateEcn, i));
        s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&StateCwnd, i));
        s->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&StateSsth, i));
        s->TraceConnectWithoutContext("BytesInFlight", MakeBoundCallback(&StateFlight, i));
        s->TraceConnectWithoutContext("RTO", MakeBoundCallback(&StateRto, i));
        s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&StateTx, i));
    }
    s->TraceConnectWithoutContext("Retransmission", MakeBoundCallback(&Retransmitted, i));
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&CongState, i));
    s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&Cwnd, i));
    s->TraceConnectWithoutContext("RTT", MakeBoundCallback(&Srtt, i));
    PointerValue cc;
    s->GetAttribute("CongestionOps", cc);
    cc.Get<TcpCongestionOps>()->TraceConnectWithoutContext("CongestionEstimate", MakeBoundCallback(&Alpha, i));
}

void Sample(Time every)
{
    for (auto& w : g_watched)
    {
        w.samples.push_back(w.disc->GetNPackets());
        w.withDevice.push_back(w.disc->GetNPackets() + w.device->GetNPackets());
    }
    for (auto& f : g_senders)
    {
        f.sumCwnd += f.cwnd;
        f.sumAlpha += f.alpha;
        f.sumSrtt += f.srtt;
        f.samples++;
        f.belowTwo += f.cwnd < 2 * 1448;
        f.belowOne += f.cwnd < 1448;
    }
    Simulator::Schedule(every, &Sample, every);
}

struct Flow
{
    std::string group;
    Ptr<PacketSink> sink;
    uint64_t atWarmup = 0;
};

std::vector<Flow> g_flows;

void MarkWarmup()
{
    for (auto& f : g_flows)
    {
        f.atWarmup = f.sink->GetTotalRx();
    }
    for (auto& w : g_watched)
    {
        w.marksAtWarmup = w.disc->GetStats().nTotalMarkedPackets;
    }
    g_warm = true;
}

// A sink on `rx` and a sender on `tx` towards it: OnOff (always on at `rate`, `chunk`-byte writes)
// or, with rate 0, BulkSend (unlimited).
void AddFlow(const std::string& group, Ptr<Node> tx, Ptr<Node> rx, Ipv4Address to, uint16_t port, Time start, Time stop,
             const std::string& rate, uint32_t chunk)
{
    PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer s = sink.Install(rx);
    s.Start(Seconds(0));
    size_t index = g_flows.size();
    g_flows.push_back({group, DynamicCast<PacketSink>(s.Get(0))});
    g_senders.emplace_back();
    g_senderOf[tx->GetObject<Ipv4>()->GetAddress(1, 0).GetLocal().Get()] = index;
    ApplicationContainer a;
    if (rate.empty())
    {
        BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(to, port));
        src.SetAttribute("MaxBytes", UintegerValue(0));
        src.SetAttribute("SendSize", UintegerValue(chunk));
        a = src.Install(tx);
    }
    else
    {
        OnOffHelper src("ns3::TcpSocketFactory", InetSocketAddress(to, port));
        src.SetAttribute("OnTime", StringValue("ns3::ConstantRandomVariable[Constant=1]"));
        src.SetAttribute("OffTime", StringValue("ns3::ConstantRandomVariable[Constant=0]"));
        src.SetAttribute("DataRate", DataRateValue(DataRate(rate)));
        src.SetAttribute("PacketSize", UintegerValue(chunk));
        a = src.Install(tx);
    }
    a.Get(0)->TraceConnectWithoutContext("ConnectionSucceeded", MakeBoundCallback(&Connected, index));
    a.Start(start);
    a.Stop(stop);
}

// The mean and the 99th percentile (nearest rank) of queue samples.
std::pair<double, uint32_t> MeanAndP99(std::vector<uint32_t> s)
{
    if (s.empty()) return {0, 0};
    std::sort(s.begin(), s.end());
    double sum = 0;
    for (uint32_t v : s) sum += v;
    return {sum / s.size(), s[std::min(s.size() - 1, (size_t)(0.99 * (s.size() - 1) + 0.5))]};
}

Ipv4Address Assign(Ipv4AddressHelper& addr, NetDeviceContainer d)
{
    Ipv4Address a = addr.Assign(d).GetAddress(0);
    addr.NewNetwork();
    return a;
}

// --b1MaxP (0: RED's default, LInterm 50).
double g_b1MaxP = 0;
// --b1Buffer: B1's switch buffer per port, packets (250 by default, B1's).
uint32_t g_b1Buffer = 250;

void B1(Time stop)
{
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 26));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 26));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(10)));
    Config::SetDefault("ns3::RedQueueDisc::MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, g_b1Buffer)));
    Config::SetDefault("ns3::RedQueueDisc::MinTh", DoubleValue(65));
    Config::SetDefault("ns3::RedQueueDisc::MaxTh", DoubleValue(65));
    if (g_b1MaxP > 0)
    {
        // --b1MaxP: RED's max_p (1 / LInterm; 0.02 by default). Any value in (0.5, 1) makes the
        // marks deterministic under Wait (none on the first arrival after a mark, the next one
        // certain), so fabricsim's run at the same max_p can be compared packet by packet.
        Config::SetDefault("ns3::RedQueueDisc::LInterm", DoubleValue(1.0 / g_b1MaxP));
    }
    NodeContainer hosts;
    hosts.Create(17);
    Ptr<Node> sw = CreateObject<Node>();
    InternetStackHelper stack;
    stack.Install(hosts);
    stack.Install(sw);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
    p2p.SetChannelAttribute("Delay", StringValue("1us"));
    TrafficControlHelper red;
    red.SetRootQueueDisc("ns3::RedQueueDisc");
    TrafficControlHelper fifo;
    fifo.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, g_b1Buffer)));
    Ipv4AddressHelper addr("10.0.0.0", "255.255.255.0");
    std::vector<Ipv4Address> ip(17);
    for (uint32_t i = 0; i < 17; i++)
    {
        NetDeviceContainer d = p2p.Install(hosts.Get(i), sw);
        // The switch's device queue holds one packet, so the backlog waits in the queue disc.
        d.Get(1)->GetObject<PointToPointNetDevice>()->GetQueue()->SetMaxSize(QueueSize("1p"));
        QueueDiscContainer q = (i == 0 ? red : fifo).Install(d.Get(1));
        if (i == 0)
        {
            g_watched.push_back({"s0->h0", q.Get(0), DeviceQueue(d.Get(1)), {}, {}});
        }
        ip[i] = Assign(addr, d);
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    for (uint32_t i = 1; i <= 16; i++)
    {
        AddFlow("h" + std::to_string(i) + "->h0", hosts.Get(i), hosts.Get(0), ip[0], 5000 + i,
                MicroSeconds(i) + NanoSeconds((i - 1) * g_startJitterNs), stop, "",
                1448 * 8);
    }
}

void Example(Time stop, uint32_t deviceQueue)
{
    Config::SetDefault("ns3::RedQueueDisc::MaxSize", QueueSizeValue(QueueSize("2666p")));
    Config::SetDefault("ns3::RedQueueDisc::MinTh", DoubleValue(20));
    Config::SetDefault("ns3::RedQueueDisc::MaxTh", DoubleValue(60));
    NodeContainer s1, s2, s3, r2;
    s1.Create(10);
    s2.Create(20);
    s3.Create(10);
    r2.Create(20);
    Ptr<Node> t1 = CreateObject<Node>(), t2 = CreateObject<Node>(), r1 = CreateObject<Node>();
    PointToPointHelper host, trunk;
    host.SetDeviceAttribute("DataRate", StringValue("1Gbps"));
    host.SetChannelAttribute("Delay", StringValue("10us"));
    trunk.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
    trunk.SetChannelAttribute("Delay", StringValue("10us"));
    NetDeviceContainer t1t2 = trunk.Install(t1, t2);
    NetDeviceContainer r1t2 = host.Install(r1, t2);
    std::vector<NetDeviceContainer> ds1, ds2, ds3, dr2;
    for (uint32_t i = 0; i < 10; i++) ds1.push_back(host.Install(s1.Get(i), t1));
    for (uint32_t i = 0; i < 20; i++) ds2.push_back(host.Install(s2.Get(i), t1));
    for (uint32_t i = 0; i < 10; i++) ds3.push_back(host.Install(s3.Get(i), t2));
    for (uint32_t i = 0; i < 20; i++) dr2.push_back(host.Install(r2.Get(i), t2));
    InternetStackHelper stack;
    stack.InstallAll();
    for (NodeList::Iterator n = NodeList::Begin(); n != NodeList::End(); ++n)
    {
        if (*n != t1 && *n != t2) continue;
        for (uint32_t d = 0; d < (*n)->GetNDevices(); d++)
        {
            Ptr<PointToPointNetDevice> p = DynamicCast<PointToPointNetDevice>((*n)->GetDevice(d));
            if (p) p->GetQueue()->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, deviceQueue));
        }
    }
    TrafficControlHelper red10, red1;
    red10.SetRootQueueDisc("ns3::RedQueueDisc", "LinkBandwidth", StringValue("10Gbps"), "LinkDelay", StringValue("10us"),
                           "MinTh", DoubleValue(50), "MaxTh", DoubleValue(150));
    red1.SetRootQueueDisc("ns3::RedQueueDisc", "LinkBandwidth", StringValue("1Gbps"), "LinkDelay", StringValue("10us"),
                          "MinTh", DoubleValue(20), "MaxTh", DoubleValue(60));
    QueueDiscContainer trunkQ = red10.Install(t1t2);
    g_watched.push_back({"T1->T2", trunkQ.Get(0), DeviceQueue(t1t2.Get(0)), {}, {}});
    g_watched.push_back({"T2->R1", red1.Install(r1t2.Get(1)).Get(0), DeviceQueue(r1t2.Get(1)), {}, {}});
    for (auto* v : {&ds1, &ds2, &ds3, &dr2})
    {
        for (auto& d : *v) red1.Install(d.Get(1));
    }
    Ipv4AddressHelper addr("10.0.0.0", "255.255.255.0");
    Assign(addr, t1t2);
    Ipv4Address ipR1 = Assign(addr, r1t2);
    std::vector<Ipv4Address> ipR2;
    for (auto* v : {&ds1, &ds2, &ds3}) for (auto& d : *v) Assign(addr, d);
    for (auto& d : dr2) ipR2.push_back(Assign(addr, d));
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    const Time window = Seconds(1);  // the example's flowStartupWindow
    for (uint32_t i = 0; i < 20; i++)
    {
        AddFlow("S2->R2", s2.Get(i), r2.Get(i), ipR2[i], 50000 + i, i * window / 20 + MilliSeconds(i * 5) + NanoSeconds(i * g_startJitterNs),
                stop, "1Gbps", 1000);
    }
    for (uint32_t i = 0; i < 20; i++)
    {
        Ptr<Node> from = i < 10 ? s1.Get(i) : s3.Get(i - 10);
        Time start = (i < 10 ? i : i - 10) * window / 10 + MilliSeconds(i * 5) + NanoSeconds((20 + i) * g_startJitterNs);
        AddFlow(i < 10 ? "S1->R1" : "S3->R1", from, r1, ipR1, 50000 + i, start, stop, "1Gbps", 1000);
    }
}
}  // namespace

int main(int argc, char* argv[])
{
    std::string scenario = "b1";
    double simTime = 0.1, warmup = 0.0, sampleUs = 10;
    uint32_t deviceQueue = 100;
    std::string trace;
    double traceUntil = 0.01, traceFrom = 0;
    uint32_t tracePort = 0;
    CommandLine cmd(__FILE__);
    cmd.AddValue("scenario", "b1 or example", scenario);
    cmd.AddValue("time", "simulated seconds", simTime);
    cmd.AddValue("warmup", "seconds before per-flow goodput and queue samples count", warmup);
    cmd.AddValue("sample", "queue sampling interval, microseconds", sampleUs);
    cmd.AddValue("deviceQueue", "switch device queue, packets (example)", deviceQueue);
    cmd.AddValue("trace", "per-packet trace of the first observed port into this file", trace);
    cmd.AddValue("traceUntil", "per-packet trace until this time, seconds", traceUntil);
    cmd.AddValue("traceFrom", "per-packet trace from this time, seconds", traceFrom);
    cmd.AddValue("tracePort", "which observed port to trace (0, 1, ...)", tracePort);
    std::string echoTrace;
    cmd.AddValue("echoTrace", "one flow's data arrivals at its receiver and ACK arrivals at its sender into this file", echoTrace);
    std::string stateTrace;
    cmd.AddValue("stateTrace", "the --echoTrace flow's sender state changes and segments sent into this file", stateTrace);
    std::string hostTrace;
    cmd.AddValue("hostTrace", "every TCP packet the hosts send and receive, --traceFrom to --traceUntil, into this file", hostTrace);
    cmd.AddValue("echoFlow", "the flow --echoTrace follows (0-based, in the driver's order)", g_echoFlow);
    cmd.AddValue("b1Buffer", "B1: the switch's buffer per port, packets (250); a smaller one gives drops under deterministic marks", g_b1Buffer);
    cmd.AddValue("b1MaxP", "B1: RED's max_p, 1 / LInterm (0: the default 0.02); 0.7 makes the marks deterministic", g_b1MaxP);
    cmd.AddValue("startJitterNs", "flow k (0-based, in the driver's order) starts k x this many ns later", g_startJitterNs);
    cmd.Parse(argc, argv);

    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::TcpDctcp"));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
    Config::SetDefault("ns3::RedQueueDisc::UseEcn", BooleanValue(true));
    Config::SetDefault("ns3::RedQueueDisc::UseHardDrop", BooleanValue(false));
    Config::SetDefault("ns3::RedQueueDisc::MeanPktSize", UintegerValue(1500));
    Config::SetDefault("ns3::RedQueueDisc::QW", DoubleValue(1));
    Time stop = Seconds(simTime);
    if (scenario == "b1")
    {
        B1(stop);
    }
    else if (scenario == "example")
    {
        Example(stop, deviceQueue);
    }
    else
    {
        std::fprintf(stderr, "--scenario: b1 or example\n");
        return 2;
    }
    Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::PointToPointNetDevice/PhyTxEnd", MakeCallback(&TxEnd));
    Config::ConnectWithoutContext("/NodeList/*/$ns3::Ipv4L3Protocol/LocalDeliver", MakeCallback(&Delivered));
    for (auto& w : g_watched) w.disc->TraceConnectWithoutContext("Drop", MakeCallback(&CountDrop));
    if (!stateTrace.empty()) g_stateTrace = std::fopen(stateTrace.c_str(), "w");
    if (!echoTrace.empty()) g_echoTrace = std::fopen(echoTrace.c_str(), "w");
    if (!hostTrace.empty())
    {
        g_hostTrace = std::fopen(hostTrace.c_str(), "w");
        Config::ConnectWithoutContext("/NodeList/*/$ns3::Ipv4L3Protocol/SendOutgoing", MakeCallback(&HostSent));
    }
    g_echoFrom = Seconds(traceFrom);
    g_echoUntil = Seconds(traceUntil);
    if (!trace.empty())
    {
        g_trace = std::fopen(trace.c_str(), "w");
        g_traceUntil = Seconds(traceUntil);
        g_traceFrom = Seconds(traceFrom);
        g_traceDisc = g_watched.at(tracePort).disc;
        g_traceDevice = g_watched.at(tracePort).device;
        g_traceDisc->TraceConnectWithoutContext("Enqueue", MakeCallback(&TraceEnqueue));
        g_traceDisc->TraceConnectWithoutContext("Drop", MakeCallback(&TraceDrop));
        g_traceDisc->TraceConnectWithoutContext("Mark", MakeCallback(&TraceMark));
    }
    Simulator::Schedule(Seconds(warmup), &MarkWarmup);
    Simulator::Schedule(Seconds(warmup), &Sample, MicroSeconds(sampleUs));
    Simulator::Stop(stop);
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    std::printf("{\"scenario\": \"%s\", \"sim_time_s\": %.6f, \"warmup_s\": %.6f, \"wall_s\": %.3f, \"packet_hops\": %lu, "
                "\"retransmits\": %lu, \"flows\": [",
                scenario.c_str(), simTime, warmup, wall, (unsigned long)g_hops, (unsigned long)g_retransmits);
    for (size_t i = 0; i < g_flows.size(); i++)
    {
        uint64_t rx = g_flows[i].sink->GetTotalRx();
        const SenderState& f = g_senders[i];
        double n = f.samples ? (double)f.samples : 1.0;
        std::printf("%s{\"group\": \"%s\", \"rx_bytes\": %lu, \"rx_after_warmup\": %lu, \"cwnd_mean\": %.1f, \"alpha_mean\": %.5f, "
                    "\"srtt_mean_s\": %.7f, \"cwnd_below_2_frac\": %.4f, \"cwnd_below_1_frac\": %.4f, \"ece_fraction\": %.5f, "
                    "\"timeouts\": %lu, \"recoveries\": %lu, \"retransmits\": %lu, \"drops\": %lu, "
                    "\"echo\": {\"data\": %lu, \"ce\": %lu, \"acks\": %lu, \"ece_acks\": %lu, \"adv_acks\": %lu, "
                    "\"adv_ece_acks\": %lu, \"adv_bytes\": %lu, \"adv_ece_bytes\": %lu, \"dup_acks\": %lu, \"dup_ece_acks\": %lu, "
                    "\"cc_bytes\": %lu, \"cc_ece_bytes\": %lu}}",
                    i ? ", " : "", g_flows[i].group.c_str(), (unsigned long)rx, (unsigned long)(rx - g_flows[i].atWarmup),
                    f.sumCwnd / n, f.sumAlpha / n, f.sumSrtt / n, f.belowTwo / n, f.belowOne / n, f.ackedBytes ? (double)f.eceBytes / f.ackedBytes : 0.0,
                    (unsigned long)f.timeouts, (unsigned long)f.recoveries, (unsigned long)f.retransmits, (unsigned long)f.drops,
                    (unsigned long)f.dataSegs, (unsigned long)f.ceSegs, (unsigned long)f.acks, (unsigned long)f.eceAcks,
                    (unsigned long)f.advAcks, (unsigned long)f.advEceAcks, (unsigned long)f.advBytes, (unsigned long)f.advEceBytes,
                    (unsigned long)f.dupAcks, (unsigned long)f.dupEceAcks, (unsigned long)f.ackedBytes, (unsigned long)f.eceBytes);
    }
    std::printf("], \"queues\": [");
    for (size_t i = 0; i < g_watched.size(); i++)
    {
        const QueueDisc::Stats& st = g_watched[i].disc->GetStats();
        auto [mean, p99] = MeanAndP99(g_watched[i].samples);
        auto [meanT, p99T] = MeanAndP99(g_watched[i].withDevice);
        size_t samples = g_watched[i].samples.size();
        std::printf("%s{\"port\": \"%s\", \"marks\": %u, \"drops\": %u, \"enqueued\": %u, \"mean_packets\": %.3f, \"p99_packets\": %u, "
                    "\"samples\": %zu, \"mean_with_device\": %.3f, \"p99_with_device\": %u, \"marks_after_warmup\": %u}",
                    i ? ", " : "", g_watched[i].name.c_str(), st.nTotalMarkedPackets, st.nTotalDroppedPackets,
                    st.nTotalEnqueuedPackets, mean, p99, samples, meanT, p99T, st.nTotalMarkedPackets - g_watched[i].marksAtWarmup);
    }
    std::printf("]}\n");
    if (g_trace) std::fclose(g_trace);
    if (g_echoTrace) std::fclose(g_echoTrace);
    if (g_stateTrace) std::fclose(g_stateTrace);
    if (g_hostTrace) std::fclose(g_hostTrace);
    Simulator::Destroy();
    return 0;
}
