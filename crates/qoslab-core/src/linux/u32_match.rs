//! A u32 filter rule's keys read back as a scenario `match`: the inverse of
//! [`super::tc_filter`].
//!
//! A key compares the 32-bit word at a byte offset of the IPv4 header under a mask
//! (`tc-u32(8)`); tc merges the selectors of one word into one key, so a key is split by the
//! header fields its mask covers: the DSCP bits of the ToS byte and the total length (offset
//! 0), the protocol (8), the source and destination addresses (12, 16) and, at 20, the
//! transport header's source and destination ports (option-less IPv4, as qoslab sends).
//! A masked field becomes the set of values it admits: the DSCPs whose ToS bits agree, an
//! address prefix, a port or length range. What no `match` key can say is refused at the
//! key: other header words (TTL, identification, checksum), a mask that is not a prefix on
//! an address, port or length, a nonzero ECN value.

use super::tc_show::U32Key;
use crate::config::error::Issue;
use serde_json::{json, Map, Value};

/// The keys of one rule (found at `at`) as a `match` mapping; no keys match every packet.
pub fn match_of(keys: &[U32Key], at: &str) -> Result<Map<String, Value>, Issue> {
    let mut words: Vec<U32Key> = Vec::new();
    for key in keys {
        match words.iter_mut().find(|w| w.off == key.off) {
            Some(word) => {
                if (word.value ^ key.value) & word.mask & key.mask != 0 {
                    return Err(Issue::at(
                        at,
                        format!("two matches at offset {} that no packet meets both", key.off),
                    ));
                }
                word.value |= key.value & key.mask;
                word.mask |= key.mask;
            }
            None => words.push(U32Key { value: key.value & key.mask, ..*key }),
        }
    }
    let mut out = Map::new();
    for word in words {
        let field = |shift: u32, bits: u32| ((word.value >> shift) & bits, (word.mask >> shift) & bits);
        let outside = |covered: u32, name: &str| {
            if word.mask & !covered != 0 {
                Err(Issue::at(
                    at,
                    format!(
                        "a match on {name} (offset {}, mask {:#010x}) has no scenario `match` key",
                        word.off, word.mask
                    ),
                )
                .hint("qoslab matches DSCP, protocol, addresses, ports and the packet's length"))
            } else {
                Ok(())
            }
        };
        match word.off {
            0 => {
                outside(0x00ff_ffff, "the version and header length")?;
                let (tos, tos_mask) = field(16, 0xff);
                if tos & 0x03 != 0 {
                    return Err(Issue::at(
                        at,
                        "a match on a nonzero ECN field: qoslab's packets are not ECN-capable",
                    )
                    .hint("match the DSCP bits only (mask 0xfc)"));
                }
                if tos_mask & 0xfc != 0 {
                    let dscps: Vec<Value> =
                        (0u32..64).filter(|d| (d << 2) & tos_mask == tos & 0xfc).map(Value::from).collect();
                    out.insert("dscp".into(), Value::Array(dscps));
                }
                let (length, length_mask) = field(0, 0xffff);
                if length_mask != 0 {
                    let (low, high) = block_range(length, length_mask, 16)
                        .ok_or_else(|| not_prefix(at, "the packet length", length_mask))?;
                    out.insert("length".into(), json!({"min": format!("{low}B"), "max": format!("{high}B")}));
                }
            }
            8 => {
                outside(0x00ff_0000, "the TTL or checksum")?;
                let (protocol, mask) = field(16, 0xff);
                match mask {
                    0 => {}
                    0xff => {
                        out.insert("protocol".into(), Value::from(protocol));
                    }
                    _ => return Err(not_prefix(at, "the protocol", mask)),
                }
            }
            12 | 16 => {
                let name = if word.off == 12 { "src" } else { "dst" };
                if word.mask != 0 {
                    let bits = word.mask.leading_ones();
                    if word.mask.count_ones() != bits {
                        return Err(not_prefix(at, "an address", word.mask));
                    }
                    let a = word.value.to_be_bytes();
                    out.insert(
                        name.into(),
                        Value::from(format!("{}.{}.{}.{}/{bits}", a[0], a[1], a[2], a[3])),
                    );
                }
            }
            20 => {
                for (name, shift) in [("src_port", 16), ("dst_port", 0)] {
                    let (port, mask) = field(shift, 0xffff);
                    if mask != 0 {
                        let (low, high) =
                            block_range(port, mask, 16).ok_or_else(|| not_prefix(at, "a port", mask))?;
                        let range =
                            if low == high { Value::from(low) } else { Value::from(format!("{low}-{high}")) };
                        out.insert(name.into(), range);
                    }
                }
            }
            _ => {
                if word.mask != 0 {
                    outside(0, "this header word")?;
                }
            }
        }
    }
    Ok(out)
}

/// The range of `bits`-bit values `value` under `mask` admits, when the mask is a prefix.
fn block_range(value: u32, mask: u32, bits: u32) -> Option<(u32, u32)> {
    let full = (1u32 << bits) - 1;
    let free = full & !mask;
    // A prefix mask leaves a run of low bits free: free + 1 is a power of two.
    ((free & (free + 1)) == 0).then_some((value & mask, (value & mask) | free))
}

fn not_prefix(at: &str, what: &str, mask: u32) -> Issue {
    Issue::at(at, format!("a match on {what} under mask {mask:#x}, which is not a prefix: no range says it"))
        .hint("qoslab reads a masked field as one range of values (an aligned block)")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(value: u32, mask: u32, off: i64) -> U32Key {
        U32Key { value, mask, off }
    }

    #[test]
    fn header_words_become_match_keys() {
        // match ip dsfield 0xb8 0xfc; match ip dport 5060 0xffff; match ip protocol 17 0xff
        let m = match_of(
            &[key(0x00b8_0000, 0x00fc_0000, 0), key(0x13c4, 0xffff, 20), key(0x0011_0000, 0x00ff_0000, 8)],
            "f",
        )
        .unwrap();
        assert_eq!(Value::Object(m), json!({"dscp": [46], "dst_port": 5060, "protocol": 17}));
        // Precedence 5 (0xa0/0xe0) is DSCPs 40-47; ports 16384-32767 one block.
        let m =
            match_of(&[key(0x00a0_0000, 0x00e0_0000, 0), key(0x4000_0000, 0xc000_0000, 20)], "f").unwrap();
        assert_eq!(
            Value::Object(m),
            json!({"dscp": [40, 41, 42, 43, 44, 45, 46, 47], "src_port": "16384-32767"})
        );
        let m = match_of(&[key(0x0a00_0000, 0xff00_0000, 16), key(0, 0xff00, 0)], "f").unwrap();
        assert_eq!(Value::Object(m), json!({"dst": "10.0.0.0/8", "length": {"min": "0B", "max": "255B"}}));
        assert!(match_of(&[], "f").unwrap().is_empty());
    }

    #[test]
    fn what_no_match_key_says_is_refused() {
        let ttl = match_of(&[key(0x4000_0000, 0xff00_0000, 8)], "f").unwrap_err();
        assert!(ttl.message.contains("TTL"), "{}", ttl.message);
        let holes = match_of(&[key(0x0a00_0001, 0xff00_00ff, 12)], "f").unwrap_err();
        assert!(holes.message.contains("not a prefix"), "{}", holes.message);
        let ecn = match_of(&[key(0x00b9_0000, 0x00ff_0000, 0)], "f").unwrap_err();
        assert!(ecn.message.contains("ECN"), "{}", ecn.message);
        let never =
            match_of(&[key(0x00b8_0000, 0x00fc_0000, 0), key(0x0028_0000, 0x00fc_0000, 0)], "f").unwrap_err();
        assert!(never.message.contains("no packet meets both"), "{}", never.message);
    }
}
