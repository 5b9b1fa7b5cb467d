//! Unit tests of the configuration: presets, layouts, TOML round trips.
use super::*;

#[test]
fn to_toml_names_an_integer_beyond_toml() {
    let mut c = Config::default_preset();
    c.run.seed = i64::MAX as u64;
    assert!(c.to_toml().unwrap().contains("seed = 9223372036854775807"));
    c.run.seed = i64::MAX as u64 + 1;
    let e = c.to_toml().unwrap_err().to_string();
    assert!(
        e.contains("run.seed") && e.contains("9223372036854775807"),
        "{e}"
    );
}

#[test]
fn every_preset_validates() {
    for name in Config::preset_names() {
        let c = Config::load(Some(name), None).unwrap();
        let l = c.layout().unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(l.logical_pages > 0, "{name}");
    }
}

#[test]
fn op_definitions_agree() {
    let mut c = Config::default_preset();
    c.ftl.op = None;
    c.ftl.op_of_physical = Some(0.2);
    let l = c.layout().unwrap();
    assert!((l.op_of_physical - 0.2).abs() < 1e-3);
    assert!((l.op - 0.25).abs() < 1e-3);
    assert_eq!(l.op_given_as, "op_of_physical");
}

#[test]
fn bad_values_name_the_field() {
    let mut c = Config::default_preset();
    c.ftl.op = Some(0.0);
    assert!(c.layout().unwrap_err().to_string().contains("ftl.op"));
    let mut c = Config::default_preset();
    c.device.channels = 0;
    assert!(c
        .layout()
        .unwrap_err()
        .to_string()
        .contains("device.channels"));
    let e = Config::load(None, Some(("x.toml", "[device]\nchanels = 3\n"))).unwrap_err();
    assert!(
        e.to_string().contains("x.toml") && e.to_string().contains("chanels"),
        "{e}"
    );
    let e = Config::load(None, Some(("x.toml", "[device\n"))).unwrap_err();
    assert!(
        e.to_string().contains("x.toml") && e.to_string().contains("line 1"),
        "{e}"
    );
}

#[test]
fn too_little_spare_is_rejected() {
    let mut c = Config::default_preset();
    c.ftl.logical_gib = Some(0.01);
    c.ftl.op = Some(0.001);
    assert!(c.layout().unwrap_err().to_string().contains("spare"));
}

#[test]
fn a_file_field_replaces_the_presets_alternative() {
    // `op_of_physical` over a preset's `op` (and the reverse) is the file's choice, not
    // "both given".
    let c = Config::load(None, Some(("x.toml", "[ftl]\nop_of_physical = 0.2\n"))).unwrap();
    assert_eq!((c.ftl.op, c.ftl.op_of_physical), (None, Some(0.2)));
    assert_eq!(c.layout().unwrap().op_given_as, "op_of_physical");
    let c = Config::load(Some("mqsim-default"), Some(("x.toml", "[ftl]\nop = 0.2\n"))).unwrap();
    assert_eq!((c.ftl.op, c.ftl.op_of_physical), (Some(0.2), None));
    // Both in one file stay an error.
    let both = "[ftl]\nop = 0.2\nop_of_physical = 0.2\n";
    let c = Config::load(None, Some(("x.toml", both))).unwrap();
    assert!(c.layout().unwrap_err().to_string().contains("not both"));
    // A file's `blocks_per_plane` sizes the device; the preset's `logical_gib` no longer
    // overrides it (it did, silently).
    let bpp = "[device]\nblocks_per_plane = 100\n";
    let c = Config::load(None, Some(("x.toml", bpp))).unwrap();
    assert_eq!(c.ftl.logical_gib, None);
    assert_eq!(c.layout().unwrap().blocks_per_plane, 100);
    // ... unless the file gives `logical_gib` too, or `blocks_per_plane = 0` ("derive").
    let both = "[device]\nblocks_per_plane = 100\n[ftl]\nlogical_gib = 1.0\n";
    let c = Config::load(None, Some(("x.toml", both))).unwrap();
    assert_eq!(c.ftl.logical_gib, Some(1.0));
    let zero = "[device]\nblocks_per_plane = 0\n";
    let c = Config::load(None, Some(("x.toml", zero))).unwrap();
    assert_eq!(c.ftl.logical_gib, Some(4.0));
}
