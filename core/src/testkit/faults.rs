//! Fault injection for the memory hosts: fail the Nth read, write, remove or commit.

/// The operation a fault applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum FaultOp {
    /// `Workspace::read`.
    Read,
    /// `Workspace::write`.
    Write,
    /// `Workspace::remove`.
    Remove,
    /// `StoreWrite::commit`.
    Commit,
}

/// Fail the `nth` call (1-based, counted from when the fault was armed); with `sticky`, also
/// every call after it (a disk that stays broken).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    /// Which operation.
    pub op: FaultOp,
    /// Which call fails first.
    pub nth: u64,
    /// Keep failing afterwards.
    pub sticky: bool,
}

/// Armed faults plus per-operation call counters.
#[derive(Clone, Debug, Default)]
pub struct Faults {
    armed: Vec<(Fault, u64)>,
    calls: [u64; 4],
}

impl Faults {
    /// Arm a fault; counting starts now.
    pub fn arm(&mut self, fault: Fault) {
        let base = self.calls[fault.op as usize];
        self.armed.push((fault, base));
    }

    /// Disarm everything.
    pub fn clear(&mut self) {
        self.armed.clear();
    }

    /// How many calls of `op` were made so far.
    pub fn calls(&self, op: FaultOp) -> u64 {
        self.calls[op as usize]
    }

    /// Count a call of `op` and say whether it must fail.
    pub fn hit(&mut self, op: FaultOp) -> bool {
        let slot = op as usize;
        self.calls[slot] += 1;
        let call = self.calls[slot];
        self.armed.iter().any(|(f, base)| {
            f.op == op && {
                let n = call - base;
                n == f.nth || (f.sticky && n > f.nth)
            }
        })
    }
}
