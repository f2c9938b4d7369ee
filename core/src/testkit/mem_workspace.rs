//! An in-memory workspace: a map from path to bytes.

use super::faults::{Fault, FaultOp, Faults};
use crate::error::HostError;
use crate::path::WorkPath;
use crate::ports::Workspace;
use std::collections::BTreeMap;

/// Files in memory, with fault injection.
#[derive(Clone, Debug, Default)]
pub struct MemWorkspace {
    files: BTreeMap<WorkPath, Vec<u8>>,
    faults: Faults,
}

impl MemWorkspace {
    /// An empty workspace.
    pub fn new() -> Self {
        Self::default()
    }

    /// Put a file directly (a user edit: no fault counting).
    pub fn put(&mut self, path: &str, bytes: impl Into<Vec<u8>>) {
        let path = WorkPath::parse(path).expect("test paths are valid");
        self.files.insert(path, bytes.into());
    }

    /// Delete a file directly (a user edit).
    pub fn delete(&mut self, path: &str) {
        let path = WorkPath::parse(path).expect("test paths are valid");
        self.files.remove(&path);
    }

    /// A file's bytes, read directly.
    pub fn get(&self, path: &str) -> Option<&[u8]> {
        let path = WorkPath::parse(path).expect("test paths are valid");
        self.files.get(&path).map(Vec::as_slice)
    }

    /// Every file, for whole-workspace comparisons.
    pub fn files(&self) -> &BTreeMap<WorkPath, Vec<u8>> {
        &self.files
    }

    /// Arm a fault.
    pub fn arm(&mut self, fault: Fault) {
        self.faults.arm(fault);
    }

    /// Disarm all faults.
    pub fn clear_faults(&mut self) {
        self.faults.clear();
    }

    /// The fault counters.
    pub fn faults(&self) -> &Faults {
        &self.faults
    }

    fn check(&mut self, op: FaultOp, path: &WorkPath) -> Result<(), HostError> {
        if self.faults.hit(op) {
            let verb = format!("{op:?}").to_lowercase();
            return Err(HostError::io(format!(
                "injected fault: {verb} of {path} failed"
            )));
        }
        Ok(())
    }
}

impl Workspace for MemWorkspace {
    fn read(&mut self, path: &WorkPath) -> Result<Option<Vec<u8>>, HostError> {
        self.check(FaultOp::Read, path)?;
        Ok(self.files.get(path).cloned())
    }

    fn write(&mut self, path: &WorkPath, bytes: &[u8]) -> Result<(), HostError> {
        self.check(FaultOp::Write, path)?;
        self.files.insert(path.clone(), bytes.to_vec());
        Ok(())
    }

    fn remove(&mut self, path: &WorkPath) -> Result<(), HostError> {
        self.check(FaultOp::Remove, path)?;
        self.files.remove(path);
        Ok(())
    }
}
