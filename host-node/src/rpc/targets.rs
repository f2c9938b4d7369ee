//! Before a call runs: its session argument and every target option (`since`, `to`, `turn`,
//! `operationId`, …) accept what the CLI accepts (`#N`, `@`, `@-N`, unique prefixes) and
//! become whole ids, through the core's one resolver (the wasm `Engine` runs the same one).

use super::args::Args;
use super::{Params, RpcError, known};
use rewind_core::Coded;
use rewind_core::ports::Store;
use rewind_core::refs;
use serde_json::Value;

/// The arguments of a call to `method`, its targets resolved (see [`resolve`]).
pub(super) fn args(
    store: &dyn Store,
    method: &str,
    mut params: Value,
) -> Result<(&'static str, Args), RpcError> {
    let (method, shape) = known(method)?;
    resolve(store, method, shape, &mut params)?;
    Ok((method, Args::new(method, params, shape.arity())?))
}

/// Rewrite `params` of `method` (of shape `shape`) in place; a string that names nothing is a
/// `not_found` naming what it is (a session, turn `#9`), an ambiguous prefix `invalid_input`
/// with its candidates. Arguments of the wrong type are left for the method to refuse.
fn resolve(
    store: &dyn Store,
    method: &str,
    shape: Params,
    params: &mut Value,
) -> Result<(), RpcError> {
    if !matches!(
        shape,
        Params::Session | Params::SessionOptions | Params::OptSession
    ) {
        return Ok(());
    }
    let Value::Array(items) = params else {
        return Ok(());
    };
    let fail = |e: refs::Error| RpcError::new(e.code(), e);
    let Some(Value::String(typed)) = items.first() else {
        return Ok(());
    };
    let session = refs::resolve_session(store, typed, method).map_err(fail)?;
    items[0] = Value::String(session.to_string());
    if let Some(options) = items.get_mut(1) {
        refs::resolve_options(store, &session, method, options).map_err(fail)?;
    }
    Ok(())
}
