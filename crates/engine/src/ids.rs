//! Typed indices into the simulator's arenas: a `PortId` can never be used where a `NodeId` is
//! expected, and all of them are plain `u32`s (cheap to copy, no pointers).

macro_rules! typed_id {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u32);
        impl $name {
            #[inline]
            pub fn idx(self) -> usize {
                self.0 as usize
            }
            #[inline]
            pub fn from_idx(i: usize) -> Self {
                $name(i as u32)
            }
        }
    };
}

typed_id!(
    /// A host or switch.
    NodeId
);
typed_id!(
    /// The egress side of one direction of a link: a queue plus a transmitter.
    PortId
);
typed_id!(
    /// A transport flow (one sender endpoint and one receiver endpoint).
    FlowId
);
typed_id!(
    /// A packet slot in the packet slab.
    PacketId
);
