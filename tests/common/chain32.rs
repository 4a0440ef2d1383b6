// The 32-link chain of `chain.rs`, shared by the tests and `benches/chain.rs`.
chain!(Chain32;
    (q1 x1 y1) (q2 x2 y2 x1 y1) (q3 x3 y3 x2 y2) (q4 x4 y4 x3 y3) (q5 x5 y5 x4 y4)
    (q6 x6 y6 x5 y5) (q7 x7 y7 x6 y6) (q8 x8 y8 x7 y7) (q9 x9 y9 x8 y8) (q10 x10 y10 x9 y9)
    (q11 x11 y11 x10 y10) (q12 x12 y12 x11 y11) (q13 x13 y13 x12 y12) (q14 x14 y14 x13 y13)
    (q15 x15 y15 x14 y14) (q16 x16 y16 x15 y15) (q17 x17 y17 x16 y16) (q18 x18 y18 x17 y17)
    (q19 x19 y19 x18 y18) (q20 x20 y20 x19 y19) (q21 x21 y21 x20 y20) (q22 x22 y22 x21 y21)
    (q23 x23 y23 x22 y22) (q24 x24 y24 x23 y23) (q25 x25 y25 x24 y24) (q26 x26 y26 x25 y25)
    (q27 x27 y27 x26 y26) (q28 x28 y28 x27 y27) (q29 x29 y29 x28 y28) (q30 x30 y30 x29 y29)
    (q31 x31 y31 x30 y30) (q32 x32 y32 x31 y31)
);
