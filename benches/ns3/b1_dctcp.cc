// B1 "dctcp-16to1" in ns-3 (3.37, Debian's libns3-dev), for a side-by-side run with fabricsim
// (benches/ns3/compare.sh). The same scenario as python/fabricsim/benchmarks/dctcp-16to1.toml:
// 17 hosts on one switch, 10 Gb/s links with 1 us delay; the switch port to h0 marks ECN above
// K = 65 packets (RED with min = max threshold and instantaneous queue: the usual ns-3 DCTCP
// setup) and holds 250 packets; 16 long-lived DCTCP flows h1..h16 -> h0 starting at i us; MSS
// 1448 B with timestamps (1500 B packets), IW 10, delayed ACK every 2nd segment, min RTO 10 ms;
// host device queues of 100 packets with ns-3's flow control; 1 s simulated.
// Prints: wall seconds of Simulator::Run, packets serialized onto links (packet-hops), receiver
// goodput and the time-averaged queue at the bottleneck (waiting packets).

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cstdio>

using namespace ns3;

static uint64_t g_hops = 0;
static double g_qArea = 0;  // packet-seconds
static double g_qLast = 0;
static uint32_t g_qLen = 0;

static void TxEnd(Ptr<const Packet>) { g_hops++; }

static void QueueChange(uint32_t, uint32_t now) {
  double t = Simulator::Now().GetSeconds();
  g_qArea += g_qLen * (t - g_qLast);
  g_qLast = t;
  g_qLen = now;
}

int main(int argc, char *argv[]) {
  double simTime = 1.0;
  CommandLine cmd(__FILE__);
  cmd.AddValue("time", "simulated seconds", simTime);
  cmd.Parse(argc, argv);

  Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::TcpDctcp"));
  Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
  Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
  Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
  Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 26));
  Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 26));
  Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(10)));
  Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("On"));
  Config::SetDefault("ns3::RedQueueDisc::UseEcn", BooleanValue(true));
  Config::SetDefault("ns3::RedQueueDisc::UseHardDrop", BooleanValue(false));
  Config::SetDefault("ns3::RedQueueDisc::MeanPktSize", UintegerValue(1500));
  Config::SetDefault("ns3::RedQueueDisc::MaxSize", QueueSizeValue(QueueSize("250p")));
  Config::SetDefault("ns3::RedQueueDisc::QW", DoubleValue(1));
  Config::SetDefault("ns3::RedQueueDisc::MinTh", DoubleValue(65));
  Config::SetDefault("ns3::RedQueueDisc::MaxTh", DoubleValue(65));

  NodeContainer hosts;
  hosts.Create(17);
  NodeContainer sw;
  sw.Create(1);
  InternetStackHelper stack;
  stack.Install(hosts);
  stack.Install(sw);

  PointToPointHelper p2p;
  p2p.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
  p2p.SetChannelAttribute("Delay", StringValue("1us"));
  p2p.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("100p"));

  TrafficControlHelper red;
  red.SetRootQueueDisc("ns3::RedQueueDisc");
  TrafficControlHelper fifo;
  fifo.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue("250p"));

  Ipv4AddressHelper addr;
  std::vector<Ipv4Address> hostAddr(17);
  Ptr<QueueDisc> bottleneck;
  for (uint32_t i = 0; i < 17; i++) {
    NetDeviceContainer d = p2p.Install(hosts.Get(i), sw.Get(0));
    // Hosts: no qdisc; the 100-packet device queue with flow control (BQL-like) is the NIC.
    // Switch: a one-packet device queue so the queue disc holds the backlog.
    d.Get(1)->GetObject<PointToPointNetDevice>()->GetQueue()->SetMaxSize(QueueSize("1p"));
    QueueDiscContainer q = (i == 0 ? red : fifo).Install(d.Get(1));
    if (i == 0) {
      bottleneck = q.Get(0);
    }
    std::ostringstream net;
    net << "10.0." << i << ".0";
    addr.SetBase(net.str().c_str(), "255.255.255.0");
    Ipv4InterfaceContainer ifc = addr.Assign(d);
    hostAddr[i] = ifc.GetAddress(0);
  }
  Ipv4GlobalRoutingHelper::PopulateRoutingTables();
  bottleneck->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&QueueChange));
  Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::PointToPointNetDevice/PhyTxEnd", MakeCallback(&TxEnd));

  ApplicationContainer sinks;
  for (uint32_t i = 1; i <= 16; i++) {
    uint16_t port = 5000 + i;
    PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    sinks.Add(sink.Install(hosts.Get(0)));
    BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(hostAddr[0], port));
    src.SetAttribute("MaxBytes", UintegerValue(0));
    src.SetAttribute("SendSize", UintegerValue(1448 * 8));
    ApplicationContainer a = src.Install(hosts.Get(i));
    a.Start(MicroSeconds(i));
  }
  sinks.Start(Seconds(0));

  Simulator::Stop(Seconds(simTime));
  auto t0 = std::chrono::steady_clock::now();
  Simulator::Run();
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  QueueChange(0, g_qLen);
  uint64_t rx = 0;
  for (uint32_t i = 0; i < sinks.GetN(); i++) {
    rx += DynamicCast<PacketSink>(sinks.Get(i))->GetTotalRx();
  }
  std::printf("{\"simulator\": \"ns-3.37\", \"wall_s\": %.3f, \"packet_hops\": %lu, \"goodput_gbps\": %.4f, "
              "\"mean_queue_packets\": %.2f, \"sim_time_s\": %.3f}\n",
              wall, (unsigned long)g_hops, rx * 8.0 / simTime / 1e9, g_qArea / simTime, simTime);
  Simulator::Destroy();
  return 0;
}
