//! `rewind serve --stdio`: one JSON-RPC request (or batch) per line on stdin, answered in
//! order, one line each on stdout (notifications get none). Requests run one at a time, so
//! a client reads its answers in the order it wrote them. A blank line is skipped; any other
//! line that is not JSON gets a parse error and the server reads on. End of input, or a
//! reader that went away, ends the server with exit 0.

use super::{Backend, jsonrpc};
use crate::{CliError, output};
use std::io::{self, BufRead as _};

pub(super) fn serve(backend: &Backend) -> Result<(), CliError> {
    let run = |call: jsonrpc::Call<'_>| backend.call(call);
    // Bytes, not `lines()`: a line that is not UTF-8 is the client's error (a parse error
    // answered), not the server's.
    for line in io::stdin().lock().split(b'\n') {
        let line = line.map_err(|e| CliError::host(format!("cannot read stdin: {e}")))?;
        let line = line.trim_ascii();
        if line.is_empty() {
            continue;
        }
        let Some(reply) = jsonrpc::handle_bytes(line, &run) else {
            continue;
        };
        // serde_json escapes every newline inside strings: one reply is one line.
        match output::stdout(&reply) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(()),
            Err(e) => {
                return Err(CliError::host(format!(
                    "cannot write a reply: {}",
                    rewind_host::disk::describe(&e)
                )));
            }
        }
    }
    Ok(())
}
