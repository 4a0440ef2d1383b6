// The 64-link chain of `chain.rs`, shared by the tests and `benches/chain.rs`.
chain!(Chain64;
    (q1 x1 y1) (q2 x2 y2 x1 y1) (q3 x3 y3 x2 y2) (q4 x4 y4 x3 y3) (q5 x5 y5 x4 y4)
    (q6 x6 y6 x5 y5) (q7 x7 y7 x6 y6) (q8 x8 y8 x7 y7) (q9 x9 y9 x8 y8) (q10 x10 y10 x9 y9)
    (q11 x11 y11 x10 y10) (q12 x12 y12 x11 y11) (q13 x13 y13 x12 y12) (q14 x14 y14 x13 y13)
    (q15 x15 y15 x14 y14) (q16 x16 y16 x15 y15) (q17 x17 y17 x16 y16) (q18 x18 y18 x17 y17)
    (q19 x19 y19 x18 y18) (q20 x20 y20 x19 y19) (q21 x21 y21 x20 y20) (q22 x22 y22 x21 y21)
    (q23 x23 y23 x22 y22) (q24 x24 y24 x23 y23) (q25 x25 y25 x24 y24) (q26 x26 y26 x25 y25)
    (q27 x27 y27 x26 y26) (q28 x28 y28 x27 y27) (q29 x29 y29 x28 y28) (q30 x30 y30 x29 y29)
    (q31 x31 y31 x30 y30) (q32 x32 y32 x31 y31) (q33 x33 y33 x32 y32) (q34 x34 y34 x33 y33)
    (q35 x35 y35 x34 y34) (q36 x36 y36 x35 y35) (q37 x37 y37 x36 y36) (q38 x38 y38 x37 y37)
    (q39 x39 y39 x38 y38) (q40 x40 y40 x39 y39) (q41 x41 y41 x40 y40) (q42 x42 y42 x41 y41)
    (q43 x43 y43 x42 y42) (q44 x44 y44 x43 y43) (q45 x45 y45 x44 y44) (q46 x46 y46 x45 y45)
    (q47 x47 y47 x46 y46) (q48 x48 y48 x47 y47) (q49 x49 y49 x48 y48) (q50 x50 y50 x49 y49)
    (q51 x51 y51 x50 y50) (q52 x52 y52 x51 y51) (q53 x53 y53 x52 y52) (q54 x54 y54 x53 y53)
    (q55 x55 y55 x54 y54) (q56 x56 y56 x55 y55) (q57 x57 y57 x56 y56) (q58 x58 y58 x57 y57)
    (q59 x59 y59 x58 y58) (q60 x60 y60 x59 y59) (q61 x61 y61 x60 y60) (q62 x62 y62 x61 y61)
    (q63 x63 y63 x62 y62) (q64 x64 y64 x63 y63)
);
