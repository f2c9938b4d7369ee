//! Fault injection for the memory hosts: fail the Nth read, write, remove or commit, or make
//! the Nth commit's outcome unknown to the caller (committed or not).

/// The operation a fault applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum FaultOp {
    /// `Workspace::read`.
    Read,
    /// `Workspace::write`.
    Write,
    /// `Workspace::remove`.
    Remove,
    /// `StoreWrite::commit`: the batch is refused (nothing committed, a plain failure).
    Commit,
    /// `StoreWrite::commit` reports an in-doubt failure and the batch is NOT committed: the
    /// connection died before the commit reached the server.
    CommitInDoubt,
    /// `StoreWrite::commit` reports an in-doubt failure but the batch IS committed: the reply
    /// was lost after the server committed.
    CommitLostReply,
}

impl FaultOp {
    /// Every operation, in counter order.
    const ALL: usize = 6;
}

/// Fail the `nth` call (1-based, counted from when the fault was armed); with `sticky`, also
/// every call after it (a disk that stays broken). The three commit faults count the same
/// calls: every commit is one call of each.
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
    calls: [u64; FaultOp::ALL],
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

/// The error of an injected in-doubt commit (`committed` says what really happened, for the
/// message only: the caller must not act on it).
pub(crate) fn in_doubt(committed: bool) -> crate::HostError {
    let truth = if committed {
        "it did commit"
    } else {
        "it did not commit"
    };
    crate::HostError::in_doubt(format!(
        "injected fault: the connection was lost at commit and the outcome is unknown ({truth})"
    ))
}
