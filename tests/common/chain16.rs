// The 16-link chain of `chain.rs`, shared by the tests and `benches/chain.rs`.
chain!(Chain16;
    (q1 x1 y1) (q2 x2 y2 x1 y1) (q3 x3 y3 x2 y2) (q4 x4 y4 x3 y3) (q5 x5 y5 x4 y4)
    (q6 x6 y6 x5 y5) (q7 x7 y7 x6 y6) (q8 x8 y8 x7 y7) (q9 x9 y9 x8 y8) (q10 x10 y10 x9 y9)
    (q11 x11 y11 x10 y10) (q12 x12 y12 x11 y11) (q13 x13 y13 x12 y12) (q14 x14 y14 x13 y13)
    (q15 x15 y15 x14 y14) (q16 x16 y16 x15 y15)
);
