//! fio's steady-state arithmetic on hand-worked sample sequences (fio 3.33's
//! `steadystate_deviation` and `steadystate_slope`).

use super::{SteadyMetric, SteadySpec, Window};

fn spec(metric: SteadyMetric, slope: bool, percent: bool, limit: f64, dur: u64) -> SteadySpec {
    SteadySpec {
        metric,
        slope,
        percent,
        limit,
        dur,
        ramp_us: 0,
        group_reporting: false,
    }
}

/// Pushes IOPS samples (bandwidth 4096 per request); returns whether the last attained.
fn push_all(w: &mut Window, s: &SteadySpec, iops: &[u64]) -> Vec<bool> {
    iops.iter().map(|&x| w.push(s, x, x * 4096)).collect()
}

/// Deviation: [10, 12, 14] has mean 12 and largest deviation 2, not below 2; the ring then
/// drops 10 for 13: [12, 14, 13], mean 13, deviation 1 < 2.
#[test]
fn deviation_is_the_largest_distance_from_the_mean() {
    let s = spec(SteadyMetric::Iops, false, false, 2.0, 3);
    let mut w = Window::new(3);
    assert_eq!(push_all(&mut w, &s, &[10, 12, 14]), [false, false, false]);
    assert_eq!((w.deviation, w.criterion), (2.0, 2.0));
    assert!(w.push(&s, 13, 13 * 4096));
    assert_eq!((w.deviation, w.criterion), (1.0, 1.0));
    // Oldest first, as fio's JSON lists an attained window.
    assert_eq!(w.ordered(true).0, [12, 14, 13]);
    assert_eq!(w.means(), (13, 13 * 4096));
    // Before the window is full nothing is checked, however steady.
    let mut w = Window::new(3);
    assert_eq!(push_all(&mut w, &s, &[5, 5]), [false, false]);
    assert_eq!(w.criterion, 0.0);
    assert_eq!(w.ordered(false).0, [5, 5, 0]);
}

/// `%`: relative to the float mean: 100 * 2 / 12.
#[test]
fn deviation_percent_is_relative_to_the_mean() {
    let s = spec(SteadyMetric::Iops, false, true, 16.7, 3);
    let mut w = Window::new(3);
    assert_eq!(push_all(&mut w, &s, &[10, 12, 14]), [false, false, true]);
    assert_eq!(w.criterion, 100.0 * 2.0 / 12.0);
    let s = spec(SteadyMetric::Iops, false, true, 16.6, 3);
    let mut w = Window::new(3);
    assert!(!push_all(&mut w, &s, &[10, 12, 14])[2]);
}

/// Slope: x = 0, 1, 2; [10, 12, 14]: sum_x 3, sum_x^2 5, sum_y 36, sum_xy 40, slope
/// (40 - 3 * 36 / 3) / (5 - 9 / 3) = 2. Then 13 replaces 10: sum_y 39, sum_xy
/// 40 - 39 + 3 * 13 = 40 (= 0*12 + 1*14 + 2*13), slope (40 - 39) / 2 = 0.5.
#[test]
fn slope_is_the_least_squares_slope_updated_in_place() {
    let s = spec(SteadyMetric::Iops, true, false, 0.6, 3);
    let mut w = Window::new(3);
    assert_eq!(push_all(&mut w, &s, &[10, 12, 14]), [false, false, false]);
    assert_eq!((w.slope, w.criterion), (2.0, 2.0));
    assert!(w.push(&s, 13, 0));
    assert_eq!((w.slope, w.criterion), (0.5, 0.5));
    // A falling window: |-2| < 2.5.
    let s = spec(SteadyMetric::Iops, true, false, 2.5, 3);
    let mut w = Window::new(3);
    assert_eq!(push_all(&mut w, &s, &[14, 12, 10]), [false, false, true]);
    assert_eq!(w.criterion, -2.0);
}

/// `%` on a slope divides by fio's integer mean: [10, 12, 15]: sum_y 37, sum_xy 42, slope
/// (42 - 37) / 2 = 2.5, criterion 100 * 2.5 / (37 / 3 = 12) = 20.83 (20.27 with the float
/// mean), so a limit of 20.5 is not met.
#[test]
fn slope_percent_divides_by_the_integer_mean() {
    let s = spec(SteadyMetric::Iops, true, true, 20.5, 3);
    let mut w = Window::new(3);
    assert_eq!(push_all(&mut w, &s, &[10, 12, 15]), [false, false, false]);
    assert_eq!(w.slope, 2.5);
    assert_eq!(w.criterion, 100.0 * 2.5 / 12.0);
    let s = spec(SteadyMetric::Iops, true, true, 20.9, 3);
    let mut w = Window::new(3);
    assert!(push_all(&mut w, &s, &[10, 12, 15])[2]);
}

/// A `bw` criterion looks at the bandwidth samples only.
#[test]
fn bw_criteria_use_the_bandwidth_samples() {
    let s = spec(SteadyMetric::Bw, false, false, 1000.0, 2);
    let mut w = Window::new(2);
    // IOPS steady, bandwidth 4096 and 8192: deviation 2048 from the mean 6144.
    assert!(!w.push(&s, 1, 4096));
    assert!(!w.push(&s, 1, 8192));
    assert_eq!(w.deviation, 2048.0);
    // IOPS far apart, bandwidth equal: attained.
    let mut w = Window::new(2);
    assert!(!w.push(&s, 1, 4096));
    assert!(w.push(&s, 900, 4096));
    let s = spec(SteadyMetric::Bw, true, true, 1.0, 2);
    let mut w = Window::new(2);
    assert!(!w.push(&s, 1, 4096));
    assert!(!w.push(&s, 1, 8192));
    // slope 4096 per second over the integer mean 6144.
    assert_eq!(w.criterion, 100.0 * 4096.0 / 6144.0);
}

/// Not attained, fio's JSON lists the ring from the place before its head: 1, 2, 3, 4
/// in three places leave [4, 2, 3] with the head at 2, listed 2, 3, 4.
#[test]
fn a_full_window_lists_oldest_first() {
    let s = spec(SteadyMetric::Iops, false, false, -1.0, 3);
    let mut w = Window::new(3);
    assert_eq!(push_all(&mut w, &s, &[1, 2, 3, 4]), [false; 4]);
    assert_eq!(w.ordered(false), (vec![2, 3, 4], vec![8192, 12288, 16384]));
    assert_eq!(w.means(), (3, 12288));
}

/// A window of one sample: no slope (0 / 0, never below the limit); its deviation is 0.
#[test]
fn a_one_sample_window() {
    let s = spec(SteadyMetric::Iops, true, false, 1.0, 1);
    let mut w = Window::new(1);
    assert!(!w.push(&s, 7, 0));
    assert!(w.criterion.is_nan());
    let s = spec(SteadyMetric::Iops, false, false, 1.0, 1);
    let mut w = Window::new(1);
    assert!(w.push(&s, 7, 0));
}

/// fio's JSON `ss` string: `%f` of the limit as a float.
#[test]
fn describe_prints_as_fio() {
    assert_eq!(
        spec(SteadyMetric::Iops, true, true, 0.01, 3).describe(),
        "iops_slope:0.010000%"
    );
    assert_eq!(
        spec(SteadyMetric::Bw, false, false, 10485760.0, 3).describe(),
        "bw:10485760.000000"
    );
}
