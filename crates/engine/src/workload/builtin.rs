//! The flow-size distributions shipped with fabricsim (crates/engine/workloads, provenance in its
//! README.md): compiled into the engine, addressed by file stem ("websearch", "homa_w4",
//! "fb_hadoop_mqecn", ...).

/// (name, file contents) of every built-in CDF.
pub const BUILTIN: &[(&str, &str)] = &[
    ("alibaba_storage", include_str!("../../workloads/alibaba_storage.cdf")),
    ("datamining", include_str!("../../workloads/datamining.cdf")),
    ("fb_cache", include_str!("../../workloads/fb_cache.cdf")),
    ("fb_hadoop", include_str!("../../workloads/fb_hadoop.cdf")),
    ("fb_webserver", include_str!("../../workloads/fb_webserver.cdf")),
    ("google_rpc", include_str!("../../workloads/google_rpc.cdf")),
    ("homa_w1", include_str!("../../workloads/homa_w1.cdf")),
    ("homa_w2", include_str!("../../workloads/homa_w2.cdf")),
    ("homa_w3", include_str!("../../workloads/homa_w3.cdf")),
    ("homa_w4", include_str!("../../workloads/homa_w4.cdf")),
    ("homa_w5", include_str!("../../workloads/homa_w5.cdf")),
    ("websearch", include_str!("../../workloads/websearch.cdf")),
    ("datamining_bytes_alizadeh", include_str!("../../workloads/alt/datamining_bytes_alizadeh.cdf")),
    ("datamining_opera", include_str!("../../workloads/alt/datamining_opera.cdf")),
    ("fb_cache_homa", include_str!("../../workloads/alt/fb_cache_homa.cdf")),
    ("fb_cachefollower_all_parsimon", include_str!("../../workloads/alt/fb_cachefollower_all_parsimon.cdf")),
    ("fb_hadoop_all_parsimon", include_str!("../../workloads/alt/fb_hadoop_all_parsimon.cdf")),
    ("fb_hadoop_interrack_opera", include_str!("../../workloads/alt/fb_hadoop_interrack_opera.cdf")),
    ("fb_hadoop_intracluster_parsimon", include_str!("../../workloads/alt/fb_hadoop_intracluster_parsimon.cdf")),
    ("fb_hadoop_intrarack_parsimon", include_str!("../../workloads/alt/fb_hadoop_intrarack_parsimon.cdf")),
    ("fb_hadoop_mqecn", include_str!("../../workloads/alt/fb_hadoop_mqecn.cdf")),
    ("fb_kv_alizadeh", include_str!("../../workloads/alt/fb_kv_alizadeh.cdf")),
    ("fb_webserver_all_parsimon", include_str!("../../workloads/alt/fb_webserver_all_parsimon.cdf")),
    ("websearch_bytes_alizadeh", include_str!("../../workloads/alt/websearch_bytes_alizadeh.cdf")),
    ("websearch_opera", include_str!("../../workloads/alt/websearch_opera.cdf")),
];

/// The names of the built-in CDFs.
pub fn names() -> Vec<&'static str> {
    BUILTIN.iter().map(|(n, _)| *n).collect()
}

/// The text of a built-in CDF.
pub fn text(name: &str) -> Option<&'static str> {
    BUILTIN.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}
