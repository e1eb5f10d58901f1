//! fabricsim engine: a discrete-event, packet-level simulator for datacenter networks.
//!
//! Entry points: [`Scenario::from_toml`] / [`Scenario::from_json`] validate a scenario;
//! [`Simulator::new`] builds it; [`Simulator::run`] / [`Simulator::run_until`] advance time; the
//! `*_table` methods and [`Simulator::summary`] read results. docs/ARCHITECTURE.md is the map.

pub mod capture;
pub mod event;
pub mod ids;
pub mod load;
pub mod network;
pub mod output;
pub mod packet;
pub mod queue;
pub mod ring;
pub mod rdcn;
pub mod rng;
pub mod switch;
pub mod host;
pub mod huge_pages;
pub mod scenario;
pub mod sim;
pub mod time;
pub mod topology;
pub mod transport;
pub mod units;
pub mod workload;

pub use scenario::{Issue, Issues, Scenario};
pub use sim::Simulator;
pub use time::{Rate, Time};
