//! Delta bases: a store may keep a blob as a delta against another ([`BlobInfo::base`]); that
//! base must outlive it, and a delete must never leave a stored delta without its base.

use crate::hash::ContentHash;
use crate::ports::BlobInfo;
use std::collections::{BTreeMap, BTreeSet};

/// `live` plus every base a live blob needs, transitively.
pub(crate) fn close_over_bases<'a>(
    live: BTreeSet<&'a ContentHash>,
    stored: &'a [BlobInfo],
) -> BTreeSet<&'a ContentHash> {
    let base_of: BTreeMap<&ContentHash, &ContentHash> = stored
        .iter()
        .filter_map(|b| Some((&b.hash, b.base.as_ref()?)))
        .collect();
    let mut out = BTreeSet::new();
    for mut hash in live {
        // `insert` is false once the rest of the chain is already in: each chain is walked once,
        // and a (damaged) cycle ends the walk.
        while out.insert(hash) {
            match base_of.get(hash) {
                Some(base) => hash = base,
                None => break,
            }
        }
    }
    out
}

/// Order deletes so that a blob goes before its base (deepest first, then by hash), so every
/// prefix of the delete batches leaves each stored delta with its base.
pub(crate) fn dependents_first<'a>(gone: &mut [&'a BlobInfo]) {
    let base_of: BTreeMap<&'a ContentHash, &'a ContentHash> = gone
        .iter()
        .filter_map(|b: &&'a BlobInfo| {
            let b: &'a BlobInfo = b;
            Some((&b.hash, b.base.as_ref()?))
        })
        .collect();
    let depth = |mut h: &'a ContentHash| {
        let mut d = 0usize;
        // Bounded by the number of blobs, so a damaged cycle cannot loop forever.
        while let Some(base) = base_of.get(h).filter(|_| d <= base_of.len()) {
            d += 1;
            h = base;
        }
        d
    };
    let mut keyed: Vec<(usize, &'a BlobInfo)> = gone.iter().map(|b| (depth(&b.hash), *b)).collect();
    keyed.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.hash.cmp(&b.1.hash)));
    for (slot, (_, b)) in gone.iter_mut().zip(keyed) {
        *slot = b;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(name: &str, base: Option<&str>) -> BlobInfo {
        BlobInfo {
            hash: ContentHash::of(name.as_bytes()),
            size: 1,
            stored: 1,
            base: base.map(|b| ContentHash::of(b.as_bytes())),
        }
    }

    #[test]
    fn a_live_delta_keeps_its_whole_chain_and_nothing_else() {
        let stored = [
            info("v0", None),
            info("v1", Some("v0")),
            info("v2", Some("v1")),
            info("w1", Some("v0")),
            info("x", None),
        ];
        let live = BTreeSet::from([&stored[2].hash]);
        let kept = close_over_bases(live, &stored);
        let want: BTreeSet<&ContentHash> = stored[..3].iter().map(|b| &b.hash).collect();
        assert_eq!(kept, want);
    }

    #[test]
    fn a_cycle_of_bases_ends_the_walk() {
        let stored = [info("a", Some("b")), info("b", Some("a"))];
        let kept = close_over_bases(BTreeSet::from([&stored[0].hash]), &stored);
        assert_eq!(kept.len(), 2);
        let mut gone: Vec<&BlobInfo> = stored.iter().collect();
        dependents_first(&mut gone);
        assert_eq!(gone.len(), 2);
    }

    #[test]
    fn deletes_go_dependents_first() {
        let stored = [
            info("v0", None),
            info("v1", Some("v0")),
            info("v2", Some("v1")),
            info("x", None),
        ];
        let mut gone: Vec<&BlobInfo> = stored.iter().collect();
        dependents_first(&mut gone);
        let pos = |n: &str| {
            let h = ContentHash::of(n.as_bytes());
            gone.iter().position(|b| b.hash == h).expect("listed")
        };
        assert!(pos("v2") < pos("v1") && pos("v1") < pos("v0"));
    }
}
