//! A model of 120 coordinates linearized in a thread of 2 MiB, a test thread's default
//! stack: the runtime must not keep a large model's matrices on the stack. The
//! linearization of a 101-coordinate robot (TIAGo dual, from its URDF) overflowed such a
//! thread in Cargo's default `dev` profile (opt-level 0, where every by-value return and
//! temporary of an N × N matrix is a copy in some frame); the runtime now builds them on
//! the heap from `linalg::kkt::ON_HEAP_FROM` bytes on. This test binary is built with
//! opt-level 1 (the workspace's `dev` profile), where copies are fewer, so the model is
//! larger: before that change its `linearize` needed 3.3 MiB of stack and
//! `inverse_dynamics_derivatives` 2.6 MiB here (and overflowed), after it 1.25 MiB and
//! 0.7 MiB.
//!
//! The model: 120 unit masses on a line, each tied to the one before by a spring of
//! stiffness k (the first to the origin), each pushed by an input. M = I, so
//! q̈ = u − K q with K tridiagonal.

use lagrange_runtime::linearize::{inverse_dynamics_derivatives, linearize};
use lagrange_runtime::prelude::*;

lagrangian! {
    /// 120 unit masses, springs between neighbours, a force on each.
    struct Springs {
        parameters: k = 2.0;
        coordinates:
            x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15, x16, x17,
            x18, x19, x20, x21, x22, x23, x24, x25, x26, x27, x28, x29, x30, x31, x32, x33,
            x34, x35, x36, x37, x38, x39, x40, x41, x42, x43, x44, x45, x46, x47, x48, x49,
            x50, x51, x52, x53, x54, x55, x56, x57, x58, x59, x60, x61, x62, x63, x64, x65,
            x66, x67, x68, x69, x70, x71, x72, x73, x74, x75, x76, x77, x78, x79, x80, x81,
            x82, x83, x84, x85, x86, x87, x88, x89, x90, x91, x92, x93, x94, x95, x96, x97,
            x98, x99, x100, x101, x102, x103, x104, x105, x106, x107, x108, x109, x110,
            x111, x112, x113, x114, x115, x116, x117, x118, x119;
        inputs:
            u0, u1, u2, u3, u4, u5, u6, u7, u8, u9, u10, u11, u12, u13, u14, u15, u16, u17,
            u18, u19, u20, u21, u22, u23, u24, u25, u26, u27, u28, u29, u30, u31, u32, u33,
            u34, u35, u36, u37, u38, u39, u40, u41, u42, u43, u44, u45, u46, u47, u48, u49,
            u50, u51, u52, u53, u54, u55, u56, u57, u58, u59, u60, u61, u62, u63, u64, u65,
            u66, u67, u68, u69, u70, u71, u72, u73, u74, u75, u76, u77, u78, u79, u80, u81,
            u82, u83, u84, u85, u86, u87, u88, u89, u90, u91, u92, u93, u94, u95, u96, u97,
            u98, u99, u100, u101, u102, u103, u104, u105, u106, u107, u108, u109, u110,
            u111, u112, u113, u114, u115, u116, u117, u118, u119;
        kinetic = (dot(x0)^2 + dot(x1)^2 + dot(x2)^2 + dot(x3)^2 + dot(x4)^2 + dot(x5)^2
            + dot(x6)^2 + dot(x7)^2 + dot(x8)^2 + dot(x9)^2 + dot(x10)^2 + dot(x11)^2
            + dot(x12)^2 + dot(x13)^2 + dot(x14)^2 + dot(x15)^2 + dot(x16)^2 + dot(x17)^2
            + dot(x18)^2 + dot(x19)^2 + dot(x20)^2 + dot(x21)^2 + dot(x22)^2 + dot(x23)^2
            + dot(x24)^2 + dot(x25)^2 + dot(x26)^2 + dot(x27)^2 + dot(x28)^2 + dot(x29)^2
            + dot(x30)^2 + dot(x31)^2 + dot(x32)^2 + dot(x33)^2 + dot(x34)^2 + dot(x35)^2
            + dot(x36)^2 + dot(x37)^2 + dot(x38)^2 + dot(x39)^2 + dot(x40)^2 + dot(x41)^2
            + dot(x42)^2 + dot(x43)^2 + dot(x44)^2 + dot(x45)^2 + dot(x46)^2 + dot(x47)^2
            + dot(x48)^2 + dot(x49)^2 + dot(x50)^2 + dot(x51)^2 + dot(x52)^2 + dot(x53)^2
            + dot(x54)^2 + dot(x55)^2 + dot(x56)^2 + dot(x57)^2 + dot(x58)^2 + dot(x59)^2
            + dot(x60)^2 + dot(x61)^2 + dot(x62)^2 + dot(x63)^2 + dot(x64)^2 + dot(x65)^2
            + dot(x66)^2 + dot(x67)^2 + dot(x68)^2 + dot(x69)^2 + dot(x70)^2 + dot(x71)^2
            + dot(x72)^2 + dot(x73)^2 + dot(x74)^2 + dot(x75)^2 + dot(x76)^2 + dot(x77)^2
            + dot(x78)^2 + dot(x79)^2 + dot(x80)^2 + dot(x81)^2 + dot(x82)^2 + dot(x83)^2
            + dot(x84)^2 + dot(x85)^2 + dot(x86)^2 + dot(x87)^2 + dot(x88)^2 + dot(x89)^2
            + dot(x90)^2 + dot(x91)^2 + dot(x92)^2 + dot(x93)^2 + dot(x94)^2 + dot(x95)^2
            + dot(x96)^2 + dot(x97)^2 + dot(x98)^2 + dot(x99)^2 + dot(x100)^2 + dot(x101)^2
            + dot(x102)^2 + dot(x103)^2 + dot(x104)^2 + dot(x105)^2 + dot(x106)^2
            + dot(x107)^2 + dot(x108)^2 + dot(x109)^2 + dot(x110)^2 + dot(x111)^2
            + dot(x112)^2 + dot(x113)^2 + dot(x114)^2 + dot(x115)^2 + dot(x116)^2
            + dot(x117)^2 + dot(x118)^2 + dot(x119)^2) / 2;
        potential = k / 2 * (x0^2 + (x1 - x0)^2 + (x2 - x1)^2 + (x3 - x2)^2 + (x4 - x3)^2
            + (x5 - x4)^2 + (x6 - x5)^2 + (x7 - x6)^2 + (x8 - x7)^2 + (x9 - x8)^2
            + (x10 - x9)^2 + (x11 - x10)^2 + (x12 - x11)^2 + (x13 - x12)^2 + (x14 - x13)^2
            + (x15 - x14)^2 + (x16 - x15)^2 + (x17 - x16)^2 + (x18 - x17)^2 + (x19 - x18)^2
            + (x20 - x19)^2 + (x21 - x20)^2 + (x22 - x21)^2 + (x23 - x22)^2 + (x24 - x23)^2
            + (x25 - x24)^2 + (x26 - x25)^2 + (x27 - x26)^2 + (x28 - x27)^2 + (x29 - x28)^2
            + (x30 - x29)^2 + (x31 - x30)^2 + (x32 - x31)^2 + (x33 - x32)^2 + (x34 - x33)^2
            + (x35 - x34)^2 + (x36 - x35)^2 + (x37 - x36)^2 + (x38 - x37)^2 + (x39 - x38)^2
            + (x40 - x39)^2 + (x41 - x40)^2 + (x42 - x41)^2 + (x43 - x42)^2 + (x44 - x43)^2
            + (x45 - x44)^2 + (x46 - x45)^2 + (x47 - x46)^2 + (x48 - x47)^2 + (x49 - x48)^2
            + (x50 - x49)^2 + (x51 - x50)^2 + (x52 - x51)^2 + (x53 - x52)^2 + (x54 - x53)^2
            + (x55 - x54)^2 + (x56 - x55)^2 + (x57 - x56)^2 + (x58 - x57)^2 + (x59 - x58)^2
            + (x60 - x59)^2 + (x61 - x60)^2 + (x62 - x61)^2 + (x63 - x62)^2 + (x64 - x63)^2
            + (x65 - x64)^2 + (x66 - x65)^2 + (x67 - x66)^2 + (x68 - x67)^2 + (x69 - x68)^2
            + (x70 - x69)^2 + (x71 - x70)^2 + (x72 - x71)^2 + (x73 - x72)^2 + (x74 - x73)^2
            + (x75 - x74)^2 + (x76 - x75)^2 + (x77 - x76)^2 + (x78 - x77)^2 + (x79 - x78)^2
            + (x80 - x79)^2 + (x81 - x80)^2 + (x82 - x81)^2 + (x83 - x82)^2 + (x84 - x83)^2
            + (x85 - x84)^2 + (x86 - x85)^2 + (x87 - x86)^2 + (x88 - x87)^2 + (x89 - x88)^2
            + (x90 - x89)^2 + (x91 - x90)^2 + (x92 - x91)^2 + (x93 - x92)^2 + (x94 - x93)^2
            + (x95 - x94)^2 + (x96 - x95)^2 + (x97 - x96)^2 + (x98 - x97)^2 + (x99 - x98)^2
            + (x100 - x99)^2 + (x101 - x100)^2 + (x102 - x101)^2 + (x103 - x102)^2
            + (x104 - x103)^2 + (x105 - x104)^2 + (x106 - x105)^2 + (x107 - x106)^2
            + (x108 - x107)^2 + (x109 - x108)^2 + (x110 - x109)^2 + (x111 - x110)^2
            + (x112 - x111)^2 + (x113 - x112)^2 + (x114 - x113)^2 + (x115 - x114)^2
            + (x116 - x115)^2 + (x117 - x116)^2 + (x118 - x117)^2 + (x119 - x118)^2);
        force u0 on x0;
        force u1 on x1;
        force u2 on x2;
        force u3 on x3;
        force u4 on x4;
        force u5 on x5;
        force u6 on x6;
        force u7 on x7;
        force u8 on x8;
        force u9 on x9;
        force u10 on x10;
        force u11 on x11;
        force u12 on x12;
        force u13 on x13;
        force u14 on x14;
        force u15 on x15;
        force u16 on x16;
        force u17 on x17;
        force u18 on x18;
        force u19 on x19;
        force u20 on x20;
        force u21 on x21;
        force u22 on x22;
        force u23 on x23;
        force u24 on x24;
        force u25 on x25;
        force u26 on x26;
        force u27 on x27;
        force u28 on x28;
        force u29 on x29;
        force u30 on x30;
        force u31 on x31;
        force u32 on x32;
        force u33 on x33;
        force u34 on x34;
        force u35 on x35;
        force u36 on x36;
        force u37 on x37;
        force u38 on x38;
        force u39 on x39;
        force u40 on x40;
        force u41 on x41;
        force u42 on x42;
        force u43 on x43;
        force u44 on x44;
        force u45 on x45;
        force u46 on x46;
        force u47 on x47;
        force u48 on x48;
        force u49 on x49;
        force u50 on x50;
        force u51 on x51;
        force u52 on x52;
        force u53 on x53;
        force u54 on x54;
        force u55 on x55;
        force u56 on x56;
        force u57 on x57;
        force u58 on x58;
        force u59 on x59;
        force u60 on x60;
        force u61 on x61;
        force u62 on x62;
        force u63 on x63;
        force u64 on x64;
        force u65 on x65;
        force u66 on x66;
        force u67 on x67;
        force u68 on x68;
        force u69 on x69;
        force u70 on x70;
        force u71 on x71;
        force u72 on x72;
        force u73 on x73;
        force u74 on x74;
        force u75 on x75;
        force u76 on x76;
        force u77 on x77;
        force u78 on x78;
        force u79 on x79;
        force u80 on x80;
        force u81 on x81;
        force u82 on x82;
        force u83 on x83;
        force u84 on x84;
        force u85 on x85;
        force u86 on x86;
        force u87 on x87;
        force u88 on x88;
        force u89 on x89;
        force u90 on x90;
        force u91 on x91;
        force u92 on x92;
        force u93 on x93;
        force u94 on x94;
        force u95 on x95;
        force u96 on x96;
        force u97 on x97;
        force u98 on x98;
        force u99 on x99;
        force u100 on x100;
        force u101 on x101;
        force u102 on x102;
        force u103 on x103;
        force u104 on x104;
        force u105 on x105;
        force u106 on x106;
        force u107 on x107;
        force u108 on x108;
        force u109 on x109;
        force u110 on x110;
        force u111 on x111;
        force u112 on x112;
        force u113 on x113;
        force u114 on x114;
        force u115 on x115;
        force u116 on x116;
        force u117 on x117;
        force u118 on x118;
        force u119 on x119;
    }
}

const N: usize = 120;

/// Runs `f` in a new thread with a 2 MiB stack (whatever `RUST_MIN_STACK` says): a stack
/// overflow aborts the test binary.
fn in_two_mib(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("a thread")
        .join()
        .expect("no panic");
}

fn state() -> State<N> {
    State::new(
        0.0,
        SVector::from_fn(|i, _| 0.3 * (1.7 * i as f64).sin()),
        SVector::from_fn(|i, _| 0.2 * (0.7 * i as f64).cos()),
    )
}

/// K, the springs' stiffness matrix: ∂V/∂q = K q.
fn stiffness(i: usize, j: usize) -> f64 {
    let k = Springs::default().k;
    match (i, j) {
        _ if i == j && i + 1 < N => 2.0 * k,
        _ if i == j => k,
        _ if i.abs_diff(j) == 1 => -k,
        _ => 0.0,
    }
}

#[test]
fn a_large_model_linearizes_in_a_two_mib_thread() {
    in_two_mib(|| {
        let lin = linearize(&Springs::default(), &state(), &SVector::zeros()).unwrap();
        for (i, j) in [
            (0, 0),
            (0, 1),
            (1, 0),
            (57, 57),
            (57, 58),
            (N - 1, N - 1),
            (3, 9),
        ] {
            assert_eq!(lin.d_q[(i, j)], -stiffness(i, j), "∂q̈/∂q at ({i}, {j})");
            assert_eq!(lin.d_u[(i, j)], if i == j { 1.0 } else { 0.0 });
        }
        assert!(lin.d_qd.iter().all(|&x| x == 0.0));
        assert_eq!(lin.a().shape(), (2 * N, 2 * N));
    });
}

#[test]
fn a_large_model_differentiates_its_inverse_dynamics_in_a_two_mib_thread() {
    in_two_mib(|| {
        let qdd = SVector::from_fn(|i, _| 0.1 * i as f64);
        let d =
            inverse_dynamics_derivatives(&Springs::default(), &state(), &qdd, &SVector::zeros())
                .unwrap();
        for (i, j) in [
            (0, 0),
            (0, 1),
            (1, 0),
            (57, 57),
            (57, 58),
            (N - 1, N - 1),
            (3, 9),
        ] {
            assert_eq!(d.d_q[(i, j)], stiffness(i, j), "∂τ/∂q at ({i}, {j})");
            assert_eq!(d.mass[(i, j)], if i == j { 1.0 } else { 0.0 });
            assert_eq!(d.d_u[(i, j)], if i == j { -1.0 } else { 0.0 });
        }
        assert!(d.d_qd.iter().all(|&x| x == 0.0));
    });
}
