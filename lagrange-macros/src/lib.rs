extern crate proc_macro;
#[proc_macro] pub fn lagrangian(i: proc_macro::TokenStream) -> proc_macro::TokenStream { i }
