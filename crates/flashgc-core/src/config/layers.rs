//! Layering of configurations: a preset, then a user's TOML, merged table by table, with
//! fields that say the same thing two ways (`op` / `op_of_physical`) replacing each other.

/// Merges the layer `over` into `base`: tables key by key, recursively; any other value
/// replaces the one below.
pub(super) fn merge(base: &mut toml::Value, over: toml::Value) {
    match (base, over) {
        (toml::Value::Table(b), toml::Value::Table(o)) => {
            for (k, v) in o {
                match b.get_mut(&k) {
                    Some(bv) if bv.is_table() && v.is_table() => merge(bv, v),
                    _ => {
                        b.insert(k, v);
                    }
                }
            }
        }
        (b, o) => *b = o,
    }
}

/// A field that, given in a layer, replaces another field of the layers below.
struct Alternative {
    /// Dotted path of the field given, `(table, key)`.
    given: (&'static str, &'static str),
    /// Dotted path of the field it replaces.
    replaced: (&'static str, &'static str),
    /// Whether a given value of 0 means "not given" (`blocks_per_plane = 0`: size the
    /// device from `logical_gib`).
    zero_is_unset: bool,
}

/// Fields that say the same thing two ways: a layer that gives one without the other
/// overrides the lower layers' other one too. Without this a file's `op_of_physical` over a
/// preset's `op` was refused as "both given", and a file's `blocks_per_plane` was silently
/// ignored under a preset's `logical_gib` (which sizes the device when set). The
/// command-line flags do the same (`--op-of-physical`, `--blocks-per-plane`).
const ALTERNATIVES: &[Alternative] = &[
    Alternative {
        given: ("ftl", "op"),
        replaced: ("ftl", "op_of_physical"),
        zero_is_unset: false,
    },
    Alternative {
        given: ("ftl", "op_of_physical"),
        replaced: ("ftl", "op"),
        zero_is_unset: false,
    },
    Alternative {
        given: ("device", "blocks_per_plane"),
        replaced: ("ftl", "logical_gib"),
        zero_is_unset: true,
    },
];

/// Removes from `base` the fields the layer `over` replaces (see [`ALTERNATIVES`]).
pub(super) fn drop_replaced_alternatives(base: &mut toml::Value, over: &toml::Value) {
    let get = |(table, key): (&str, &str)| over.get(table).and_then(|t| t.get(key));
    for a in ALTERNATIVES {
        let given = get(a.given).is_some_and(|v| !(a.zero_is_unset && v.as_integer() == Some(0)));
        if given && get(a.replaced).is_none() {
            let (table, key) = a.replaced;
            if let Some(t) = base.get_mut(table).and_then(toml::Value::as_table_mut) {
                t.remove(key);
            }
        }
    }
}
