//! Contract tests for the workspace-snapshot rows of the `Store` port (shell capture): one row
//! per session, replaced in place, gone with its session, never leaking between sessions.
//! `store_contract!` includes them.

/// Workspace-snapshot row guarantees.
///
/// `$make` is an expression producing a fresh, empty `impl StoreWrite`.
#[macro_export]
macro_rules! store_snapshot_contract {
    ($name:ident, $make:expr) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            #[cfg(target_arch = "wasm32")]
            use wasm_bindgen_test::wasm_bindgen_test as test;
            use $crate::batch::{Batch, Precondition, Write};
            use $crate::id::SessionId;
            use $crate::ports::{Store, StoreWrite};

            fn sid(n: &str) -> SessionId {
                SessionId::parse(&format!("ses_{n}")).expect("valid")
            }

            fn with_sessions() -> impl StoreWrite {
                let mut s = $make;
                for n in ["a", "b"] {
                    let mut b = Batch::new();
                    b.require(Precondition::SessionAbsent(sid(n)));
                    b.push(Write::CreateSession {
                        session: sid(n),
                        body: "{}".into(),
                    });
                    s.commit(b).expect("create");
                }
                s
            }

            fn put(n: &str, body: &str) -> Batch {
                let mut b = Batch::new();
                b.push(Write::PutWorkspaceSnapshot {
                    session: sid(n),
                    body: body.into(),
                });
                b
            }

            #[test]
            fn a_snapshot_row_is_replaced_and_kept_per_session() {
                let mut s = with_sessions();
                assert!(s.workspace_snapshot(&sid("a")).expect("read").is_none());
                s.commit(put("a", "{\"n\":1}")).expect("put");
                s.commit(put("a", "{\"n\":2}")).expect("replace");
                let row = s.workspace_snapshot(&sid("a")).expect("read").expect("row");
                assert_eq!(row.body, "{\"n\":2}");
                assert!(s.workspace_snapshot(&sid("b")).expect("read").is_none());
            }

            #[test]
            fn a_failed_batch_leaves_the_old_row() {
                let mut s = with_sessions();
                s.commit(put("a", "{\"n\":1}")).expect("put");
                let mut b = put("a", "{\"n\":2}");
                b.require(Precondition::LastSeq(sid("a"), 99));
                assert!(s.commit(b).is_err());
                let row = s.workspace_snapshot(&sid("a")).expect("read").expect("row");
                assert_eq!(row.body, "{\"n\":1}");
            }

            #[test]
            fn deleting_the_session_deletes_its_row() {
                let mut s = with_sessions();
                s.commit(put("a", "{}")).expect("put");
                s.commit(put("b", "{}")).expect("put");
                let mut b = Batch::new();
                b.push(Write::DeleteSession { session: sid("a") });
                s.commit(b).expect("delete");
                assert!(s.workspace_snapshot(&sid("a")).expect("read").is_none());
                assert!(s.workspace_snapshot(&sid("b")).expect("read").is_some());
            }

            #[test]
            fn a_row_for_a_missing_session_is_refused() {
                let mut s = with_sessions();
                assert!(s.commit(put("zz", "{}")).is_err());
                assert!(s.workspace_snapshot(&sid("zz")).expect("read").is_none());
            }
        }
    };
}
