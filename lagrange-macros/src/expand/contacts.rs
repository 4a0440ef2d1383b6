//! The candidate contacts of a model (`contact NAME = …;`): `NameContacts`,
//! `NameContactForces`, and `contact_dynamics`, `contact_dynamics_with` and
//! `impulse_dynamics`, which evaluate the contacts' rows (Jacobian and drift) and hand them
//! to `lagrange_runtime::contact`.

use super::lets::{rows, values_fn, Evaluation};
use crate::ast::Header;
use crate::graph::Graph;
use crate::lower::Lowered;
use crate::names::{internal, private};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

/// A contact's name and its number of rows (3 for a point, 6 for a frame).
pub struct ContactFace<'a> {
    pub name: &'a Ident,
    pub rows: usize,
}

impl ContactFace<'_> {
    /// The contacts of a lowered model.
    pub fn of(l: &Lowered) -> Vec<ContactFace<'_>> {
        l.contacts
            .iter()
            .map(|c| ContactFace {
                name: &c.name,
                rows: c.elems.len(),
            })
            .collect()
    }
}

pub fn contacts_type(header: &Header) -> Ident {
    format_ident!("{}Contacts", header.name, span = header.name.span())
}

pub fn contact_forces_type(header: &Header) -> Ident {
    format_ident!("{}ContactForces", header.name, span = header.name.span())
}

/// `NameContacts` and `NameContactForces`; nothing for a model without contacts.
pub fn contact_types(header: &Header, contacts: &[ContactFace]) -> TokenStream {
    if contacts.is_empty() {
        return TokenStream::new();
    }
    let (model, vis) = (&header.name, &header.vis);
    let (active, forces) = (contacts_type(header), contact_forces_type(header));
    let p = private();
    let names: Vec<&Ident> = contacts.iter().map(|c| c.name).collect();
    let rows = contacts.iter().map(|c| c.rows);
    let active_doc = format!(
        "Which candidate contacts of [`{model}`] are active, by name, checked by the compiler: what [`{model}::contact_dynamics`] and [`{model}::impulse_dynamics`] take."
    );
    let forces_doc = format!(
        "The force of each contact of [`{model}`] on the model, by name: world axes, at the contact point; a frame contact's moment (3) then force (3). Zero for an inactive contact."
    );
    let active_fields = contacts.iter().map(|c| {
        let kind = if c.rows == 6 { "frame" } else { "point" };
        format!("Whether the {kind} contact `{}` is active.", c.name)
    });
    let force_fields = contacts.iter().map(|c| {
        if c.rows == 6 {
            format!("The moment and force of the frame contact `{}`.", c.name)
        } else {
            format!("The force of the point contact `{}`.", c.name)
        }
    });
    quote! {
        ::lagrange_runtime::__serde_item! {
            #[doc = #active_doc]
            #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy, ::core::cmp::PartialEq, ::core::cmp::Eq, ::core::default::Default)]
            #[allow(non_snake_case)]
            #vis struct #active {
                #( #[doc = #active_fields] pub #names: bool, )*
            }
        }

        impl #active {
            /// Every contact active.
            pub const ALL: Self = Self { #( #names: true, )* };
            /// No contact active.
            pub const NONE: Self = Self { #( #names: false, )* };
        }

        ::lagrange_runtime::__serde_item! {
            #[doc = #forces_doc]
            #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy, ::core::cmp::PartialEq, ::core::default::Default)]
            #[allow(non_snake_case)]
            #vis struct #forces {
                #( #[doc = #force_fields] pub #names: #p::SVector<f64, #rows>, )*
            }
        }
    }
}

/// The contacts' methods and `impl Contacts`; nothing for a model without contacts.
pub(super) fn contacts_impl(l: &Lowered, unrolled: &Graph) -> TokenStream {
    if l.contacts.is_empty() {
        return TokenStream::new();
    }
    let name = &l.header.name;
    let (n, m, k) = (l.coordinates.len(), l.inputs.len(), l.constraints.len());
    let p = private();
    let [s, u, x, f, settings, active, restitution] =
        ["s", "u", "x", "f", "settings", "active", "restitution"].map(internal);
    let velocities: Vec<usize> = l
        .contacts
        .iter()
        .flat_map(|c| c.velocities.clone())
        .collect();
    let c: usize = l.contacts.iter().map(|c| c.elems.len()).sum();
    let r = k + c;
    // The rows unrolled within the budget of `jacobians`' own, else by the dual-number
    // passes: `jacobians`' code for both, each contact as groups of three elements of one
    // level (a frame's ω, velocity level, then its point).
    let groups: Vec<(&Ident, Vec<usize>, bool)> = l
        .contacts
        .iter()
        .flat_map(|contact| {
            contact
                .elems
                .chunks(3)
                .zip(contact.velocity.chunks(3))
                .map(move |(elems, level)| (&contact.name, elems.to_vec(), level[0]))
        })
        .collect();
    let members: Vec<usize> = (0..groups.len()).collect();
    let (evaluate, rows_code) = rows(
        l,
        unrolled,
        &groups,
        &members,
        Evaluation::Unrolled("__contact_rows"),
    )
    .or_else(|| {
        rows(
            l,
            unrolled,
            &groups,
            &members,
            Evaluation::Passes("__eval_contacts"),
        )
    })
    .expect("the passes");
    let velocities_fn = internal("__contact_velocities");
    let velocities_code = values_fn(l, &velocities_fn, &velocities);
    let row_names = l.contacts.iter().flat_map(|contact| {
        let text = contact.name.to_string();
        std::iter::repeat_n(text, contact.elems.len())
    });
    let row_active: Vec<TokenStream> = l
        .contacts
        .iter()
        .flat_map(|contact| {
            let field = &contact.name;
            std::iter::repeat_n(quote!(#active.#field), contact.elems.len())
        })
        .collect();
    let mut offset = 0;
    let force_fields: Vec<TokenStream> = l
        .contacts
        .iter()
        .map(|contact| {
            let field = &contact.name;
            let start = offset;
            offset += contact.elems.len();
            quote!(#field: #p::SVector::from_fn(|i, _| #f[#start + i]))
        })
        .collect();
    let (active_ty, forces_ty) = (contacts_type(&l.header), contact_forces_type(&l.header));
    let rows_of = quote!([#(#row_active),*]);
    let d = internal("__D");
    quote! {
        impl #p::contact::Contacts<#n, #m, #c> for #name {
            const ROW_NAMES: [&'static str; #c] = [#(#row_names),*];

            #[inline]
            fn eval_contact_velocities<#d: #p::Scalar>(&self, #x: &#p::Point<#d, #n, #m>) -> [#d; #c] {
                self.#velocities_fn(#x)
            }

            #[inline]
            fn eval_contact_rows(&self, #x: &#p::Point<f64, #n, #m>) -> #p::jacobian::Rows<#n, #c> {
                #evaluate
            }

            #[inline]
            fn eval_contact_dynamics(
                &self,
                #s: &#p::State<#n>,
                #u: &#p::SVector<f64, #m>,
                #active: &[bool; #c],
                #settings: &#p::contact::ContactSettings,
            ) -> #p::Result<(#p::SVector<f64, #n>, #p::SVector<f64, #c>), #p::DynamicsError> {
                #p::contact::dynamics::<Self, #n, #m, #k, #c, #r>(self, #s, #u, #active, #settings)
            }
        }

        impl #name {
            /// The accelerations with the `active` contacts held (their acceleration zero)
            /// and each contact's force on the model, at the state `s` with inputs `u`:
            /// see `lagrange_runtime::contact`.
            ///
            /// # Errors
            /// As `accelerations`, and `DynamicsError::DependentContacts` naming the
            /// active contacts whose rows are dependent.
            #[inline]
            pub fn contact_dynamics(
                &self,
                #s: &#p::State<#n>,
                #u: &#p::SVector<f64, #m>,
                #active: &#active_ty,
            ) -> #p::Result<#p::contact::ContactDynamics<#n, #forces_ty>, #p::DynamicsError> {
                self.contact_dynamics_with(#s, #u, #active, &#p::Default::default())
            }

            /// `contact_dynamics` with settings: a Baumgarte gain on the contacts'
            /// velocity, a regularization for dependent contact sets.
            ///
            /// # Errors
            /// As `contact_dynamics`, and `DynamicsError::InvalidSetting` for settings
            /// that `ContactSettings::check` refuses.
            #[inline]
            pub fn contact_dynamics_with(
                &self,
                #s: &#p::State<#n>,
                #u: &#p::SVector<f64, #m>,
                #active: &#active_ty,
                #settings: &#p::contact::ContactSettings,
            ) -> #p::Result<#p::contact::ContactDynamics<#n, #forces_ty>, #p::DynamicsError> {
                let (accelerations, #f) = #p::contact::dynamics::<Self, #n, #m, #k, #c, #r>(
                    self, #s, #u, &#rows_of, #settings,
                )?;
                #p::Result::Ok(#p::contact::ContactDynamics {
                    accelerations,
                    forces: #forces_ty { #(#force_fields),* },
                })
            }

            /// The state just after an impact on the `active` contacts, with
            /// `restitution` in [0, 1] (0: they come to rest; 1: their velocities
            /// reverse), and the impulses on the model: see `lagrange_runtime::contact`.
            /// The inputs are taken as zero (an impact is instantaneous).
            ///
            /// # Errors
            /// As `contact_dynamics`, and `DynamicsError::InvalidSetting` for a
            /// restitution outside [0, 1].
            #[inline]
            pub fn impulse_dynamics(
                &self,
                #s: &#p::State<#n>,
                #active: &#active_ty,
                #restitution: f64,
            ) -> #p::Result<(#p::State<#n>, #forces_ty), #p::DynamicsError> {
                let (after, #f) = #p::contact::impulse::<Self, #n, #m, #k, #c, #r>(
                    self, #s, &#rows_of, #restitution, &#p::Default::default(),
                )?;
                #p::Result::Ok((after, #forces_ty { #(#force_fields),* }))
            }

            /// The model with the `active` contacts held: a `Dynamics` to simulate (see
            /// `lagrange_runtime::contact::Holding`), with a velocity gain of `gain` (1/s)
            /// that keeps the held contacts from drifting.
            #[must_use]
            pub fn holding(&self, #active: &#active_ty, gain: f64) -> #p::contact::Holding<'_, Self, #c> {
                #p::contact::Holding {
                    model: self,
                    active: #rows_of,
                    settings: #p::contact::ContactSettings {
                        velocity_gain: gain,
                        ..#p::Default::default()
                    },
                }
            }

            /// A and B of the dynamics with the `active` contacts held, exact, with the
            /// tangent space of the contact manifold as the independent coordinates
            /// (`Linearization::tangent`): see `lagrange_runtime::contact`.
            ///
            /// # Errors
            /// As `contact_dynamics`, and `DynamicsError::NonFiniteResult` when a
            /// derivative is not finite.
            // Inline, so that the solve in dual numbers it instantiates (the model's whole
            // sweep) is compiled in the crates that call it, not in every crate that
            // defines a model with contacts: the crate of the test models (the G1, the
            // Solo-12) rebuilt in release after a `touch` in 42 s (67 s of CPU) with it
            // compiled there, 26 s (35 s) without.
            #[inline]
            pub fn linearize_contacts(
                &self,
                #s: &#p::State<#n>,
                #u: &#p::SVector<f64, #m>,
                #active: &#active_ty,
            ) -> #p::Result<#p::linearize::Linearization<#n, #m>, #p::DynamicsError> {
                #p::contact::linearize::<Self, #n, #m, #k, #c, #r>(self, #s, #u, &#rows_of)
            }

            #rows_code
            #velocities_code
        }
    }
}
