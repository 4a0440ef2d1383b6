//! Physical units: the coherent SI units a declaration may carry, the dimension each stands
//! for, and how dimensions and units are written in messages and in the generated code.
//!
//! Units are coherent SI, so a unit is its dimension: a product of powers of the seven base
//! units. A prefixed or foreign unit (`mm`, `g`, `deg`) is an error that says which coherent
//! unit to write and how to convert the value, since accepting it would silently change
//! every number of the model.

use crate::ast::UnitExpr;
use crate::errors::Errors;
use std::fmt;

/// A physical dimension: the exponents of kg, m, s, A, K, mol and cd.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Dim(pub [i32; 7]);

impl Dim {
    pub const ONE: Dim = Dim([0; 7]);
    pub const KILOGRAM: Dim = Dim([1, 0, 0, 0, 0, 0, 0]);
    pub const METRE: Dim = Dim([0, 1, 0, 0, 0, 0, 0]);
    pub const SECOND: Dim = Dim([0, 0, 1, 0, 0, 0, 0]);
    pub const AMPERE: Dim = Dim([0, 0, 0, 1, 0, 0, 0]);
    pub const NEWTON: Dim = Dim([1, 1, -2, 0, 0, 0, 0]);
    pub const JOULE: Dim = Dim([1, 2, -2, 0, 0, 0, 0]);
    pub const WATT: Dim = Dim([1, 2, -3, 0, 0, 0, 0]);
    pub const PASCAL: Dim = Dim([1, -1, -2, 0, 0, 0, 0]);
    pub const HERTZ: Dim = Dim([0, 0, -1, 0, 0, 0, 0]);
    pub const COULOMB: Dim = Dim([0, 0, 1, 1, 0, 0, 0]);
    pub const VOLT: Dim = Dim([1, 2, -3, -1, 0, 0, 0]);

    /// The product. Exponents saturate rather than overflow: a unit's exponents are small
    /// (see `parse`), and only an absurd power in an expression (`x^2000000000`) comes near.
    pub fn mul(self, other: Dim) -> Dim {
        Dim(std::array::from_fn(|i| {
            self.0[i].saturating_add(other.0[i])
        }))
    }

    pub fn div(self, other: Dim) -> Dim {
        Dim(std::array::from_fn(|i| {
            self.0[i].saturating_sub(other.0[i])
        }))
    }

    /// The `n`th power, saturating like [`Dim::mul`].
    pub fn pow(self, n: i32) -> Dim {
        Dim(self.0.map(|e| e.saturating_mul(n)))
    }

    /// The `n`th root, if `n` divides every exponent.
    pub fn root(self, n: i32) -> Option<Dim> {
        self.0
            .iter()
            .all(|e| e % n == 0)
            .then(|| Dim(self.0.map(|e| e / n)))
    }

    pub fn is_one(self) -> bool {
        self == Dim::ONE
    }

    /// A required dimension for a message: its name where it has a common one, then the
    /// base units, as in `J (kg·m²·s⁻²)`, `m·s⁻¹`, `dimensionless`. (A dimension found is
    /// written in base units only, by `Display`.)
    pub fn describe(self) -> String {
        match NAMED.iter().find(|(_, d)| *d == self) {
            Some(name) => format!("{} ({self})", name.0),
            None => self.to_string(),
        }
    }
}

impl Dim {
    /// The dimension as a user writes a unit in brackets: a named unit where it has one,
    /// else base units, as in `N`, `m/s^2`, `kg*m^2`.
    pub fn spelling(self) -> String {
        if let Some((name, _)) = NAMED.iter().find(|(_, d)| *d == self) {
            return (*name).to_string();
        }
        let factors = UNITS[..7]
            .iter()
            .zip(self.0)
            .filter(|(_, e)| *e != 0)
            .map(|((symbol, _), e)| (*symbol, e))
            .collect();
        Unit { dim: self, factors }.text()
    }
}

/// Derived units whose names messages use (`Hz` and `rad` are left out: an angular
/// velocity is not a frequency, and every dimensionless quantity is not an angle).
const NAMED: [(&str, Dim); 6] = [
    ("N", Dim::NEWTON),
    ("J", Dim::JOULE),
    ("W", Dim::WATT),
    ("Pa", Dim::PASCAL),
    ("C", Dim::COULOMB),
    ("V", Dim::VOLT),
];

impl fmt::Display for Dim {
    /// In SI base units with superscript exponents: `kg·m²·s⁻²`; `dimensionless`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let factors: Vec<String> = UNITS[..7]
            .iter()
            .map(|(symbol, _)| symbol)
            .zip(self.0)
            .filter(|(_, e)| *e != 0)
            .map(|(b, e)| match e {
                1 => (*b).to_string(),
                e => format!("{b}{}", superscript(e)),
            })
            .collect();
        if factors.is_empty() {
            write!(f, "dimensionless")
        } else {
            write!(f, "{}", factors.join("·"))
        }
    }
}

fn superscript(n: i32) -> String {
    n.to_string()
        .chars()
        .map(|c| match c {
            '-' => '⁻',
            '0' => '⁰',
            '1' => '¹',
            '2' => '²',
            '3' => '³',
            '4' => '⁴',
            '5' => '⁵',
            '6' => '⁶',
            '7' => '⁷',
            '8' => '⁸',
            _ => '⁹',
        })
        .collect()
}

/// The coherent SI units a declaration may use, with their dimensions: first the seven
/// base units, in the order a [`Dim`] lists its exponents.
const UNITS: [(&str, Dim); 15] = [
    ("kg", Dim::KILOGRAM),
    ("m", Dim::METRE),
    ("s", Dim::SECOND),
    ("A", Dim::AMPERE),
    ("K", Dim([0, 0, 0, 0, 1, 0, 0])),
    ("mol", Dim([0, 0, 0, 0, 0, 1, 0])),
    ("cd", Dim([0, 0, 0, 0, 0, 0, 1])),
    ("N", Dim::NEWTON),
    ("J", Dim::JOULE),
    ("W", Dim::WATT),
    ("Pa", Dim::PASCAL),
    ("Hz", Dim::HERTZ),
    ("C", Dim::COULOMB),
    ("V", Dim::VOLT),
    ("rad", Dim::ONE),
];

/// A declared unit: its dimension and its normal form, the symbols with their exponents in
/// the order written (`N*m/s` is `[(N, 1), (m, 1), (s, -1)]`), so that `rad` stays `rad`
/// in the generated names although it is dimensionless.
#[derive(Clone, Debug, PartialEq)]
pub struct Unit {
    pub dim: Dim,
    factors: Vec<(&'static str, i32)>,
}

impl Unit {
    fn one() -> Unit {
        Unit {
            dim: Dim::ONE,
            factors: Vec::new(),
        }
    }

    fn symbol(symbol: &'static str, dim: Dim) -> Unit {
        Unit {
            dim,
            factors: vec![(symbol, 1)],
        }
    }

    fn times(mut self, other: Unit, sign: i32) -> Unit {
        self.dim = if sign > 0 {
            self.dim.mul(other.dim)
        } else {
            self.dim.div(other.dim)
        };
        for (symbol, e) in other.factors {
            let e = e.saturating_mul(sign);
            match self.factors.iter_mut().find(|(s, _)| *s == symbol) {
                Some((_, mine)) => *mine = mine.saturating_add(e),
                None => self.factors.push((symbol, e)),
            }
        }
        self.factors.retain(|(_, e)| *e != 0);
        self
    }

    fn power(mut self, n: i32) -> Unit {
        self.dim = self.dim.pow(n);
        for (_, e) in &mut self.factors {
            *e = e.saturating_mul(n);
        }
        self.factors.retain(|(_, e)| *e != 0);
        self
    }

    /// The unit of the time derivative of a quantity in this unit: `m` gives `m/s`.
    pub fn per_second(&self) -> Unit {
        self.clone().times(Unit::symbol("s", Dim::SECOND), -1)
    }

    /// The unit in ASCII as a user would write it: `N*m`, `m/s^2`, `kg/(m*s^2)`, `1/s`, `1`.
    pub fn text(&self) -> String {
        let part = |positive: bool| -> Vec<String> {
            self.factors
                .iter()
                .filter(|(_, e)| (*e > 0) == positive)
                .map(|(s, e)| match e.abs() {
                    1 => (*s).to_string(),
                    n => format!("{s}^{n}"),
                })
                .collect()
        };
        let (over, under) = (part(true), part(false));
        let numerator = if over.is_empty() {
            "1".to_string()
        } else {
            over.join("*")
        };
        match under.len() {
            0 => numerator,
            1 => format!("{numerator}/{}", under[0]),
            _ => format!("{numerator}/({})", under.join("*")),
        }
    }
}

/// The largest exponent of a base unit in a resolved unit: far beyond any physical one,
/// and far from where exponent arithmetic would saturate (nested powers multiply).
const MAX_EXPONENT: i32 = 64;

/// The unit a declaration's brackets hold, or `None` after reporting why it is not a
/// coherent SI unit, or that its exponents are out of range.
pub fn resolve(unit: &UnitExpr, errors: &mut Errors) -> Option<Unit> {
    resolve_parts(unit, errors)
}

/// `unit` resolved, or `None` after an error on it when an exponent is out of range.
fn bounded(unit: &UnitExpr, resolved: Unit, errors: &mut Errors) -> Option<Unit> {
    if let Some(e) = resolved.dim.0.iter().find(|e| e.abs() > MAX_EXPONENT) {
        errors.at(
            first_span(unit),
            format!(
                "exponent out of range: `{unit}` raises a base unit to the power {e}; a unit's exponents are at most {MAX_EXPONENT} in size"
            ),
        );
        return None;
    }
    Some(resolved)
}

/// The span of the first symbol of a unit (a unit of `1`s only has none of its own).
fn first_span(unit: &UnitExpr) -> proc_macro2::Span {
    match unit {
        UnitExpr::Symbol(ident) => ident.span(),
        UnitExpr::One => proc_macro2::Span::call_site(),
        UnitExpr::Mul(a, b) | UnitExpr::Div(a, b) => match **a {
            UnitExpr::One => first_span(b),
            _ => first_span(a),
        },
        UnitExpr::Pow(a, _) => first_span(a),
    }
}

fn resolve_parts(unit: &UnitExpr, errors: &mut Errors) -> Option<Unit> {
    match unit {
        UnitExpr::One => Some(Unit::one()),
        UnitExpr::Symbol(ident) => {
            let name = ident.to_string();
            match UNITS.iter().find(|(s, _)| *s == name) {
                Some(&(symbol, dim)) => Some(Unit::symbol(symbol, dim)),
                None => {
                    errors.at(ident.span(), not_coherent(&name));
                    None
                }
            }
        }
        UnitExpr::Mul(a, b) | UnitExpr::Div(a, b) => {
            let (a, b) = (resolve_parts(a, errors), resolve_parts(b, errors));
            let sign = if matches!(unit, UnitExpr::Mul(..)) {
                1
            } else {
                -1
            };
            bounded(unit, a?.times(b?, sign), errors)
        }
        UnitExpr::Pow(base, n) => {
            let base = resolve_parts(base, errors)?;
            bounded(unit, base.power(*n), errors)
        }
    }
}

/// The message for a unit symbol that is not a coherent SI unit.
fn not_coherent(name: &str) -> String {
    let symbols = |units: &[(&str, Dim)]| -> String {
        units.iter().map(|(s, _)| *s).collect::<Vec<_>>().join(" ")
    };
    let list = format!(
        "units are the SI base units `{}`, the derived units `{}`, their products, quotients and integer powers (`N*m`, `m/s^2`, `s^-1`), and `1` for a dimensionless quantity",
        symbols(&UNITS[..7]),
        symbols(&UNITS[7..])
    );
    const SPELLED: [(&str, &str); 12] = [
        ("kilogram", "kg"),
        ("meter", "m"),
        ("metre", "m"),
        ("second", "s"),
        ("ampere", "A"),
        ("kelvin", "K"),
        ("newton", "N"),
        ("joule", "J"),
        ("watt", "W"),
        ("pascal", "Pa"),
        ("hertz", "Hz"),
        ("radian", "rad"),
    ];
    // Coherent SI units the language leaves out, by their expression in the ones it has.
    const IN_BASE_UNITS: [(&str, &str); 13] = [
        ("T", "kg/(A*s^2)"),
        ("Wb", "kg*m^2/(A*s^2)"),
        ("H", "kg*m^2/(A^2*s^2)"),
        ("F", "A^2*s^4/(kg*m^2)"),
        ("Ohm", "kg*m^2/(A^2*s^3)"),
        ("S", "A^2*s^3/(kg*m^2)"),
        ("sr", "1"),
        ("lm", "cd"),
        ("lx", "cd/m^2"),
        ("Bq", "1/s"),
        ("Gy", "J/kg"),
        ("Sv", "J/kg"),
        ("kat", "mol/s"),
    ];
    let singular = name.strip_suffix('s').unwrap_or(name).to_lowercase();
    if let Some((_, symbol)) = SPELLED.iter().find(|(n, _)| *n == singular) {
        return format!("unknown unit `{name}`: write its symbol, `{symbol}`");
    }
    let case_slip = UNITS.iter().find(|(s, _)| s.eq_ignore_ascii_case(name));
    if let Some((_, base)) = IN_BASE_UNITS.iter().find(|(n, _)| *n == name) {
        let slip = case_slip
            .map(|(s, _)| format!(", or did you mean `{s}`?"))
            .unwrap_or_default();
        return format!(
            "`{name}` is not one of the units the language names: write it as `{base}`{slip}\n= note: {list}"
        );
    }
    if name.contains('·') {
        return format!(
            "unknown unit `{name}`: a product of units is written with `*`, as in `N*m`"
        );
    }
    if let Some((symbol, _)) = case_slip {
        return format!(
            "unknown unit `{name}`: unit symbols are case-sensitive, did you mean `{symbol}`?"
        );
    }
    match conversion(name) {
        Some((coherent, factor)) => format!(
            "`{name}` is not a coherent SI unit: write `{coherent}` and give the value in {coherent} (1 {name} = {factor} {coherent})"
        ),
        None => match product_of_two(name) {
            Some((a, b)) => format!(
                "unknown unit `{name}`: a product of units is written with `*`, as in `{a}*{b}`"
            ),
            None => format!("unknown unit `{name}`\n= note: {list}"),
        },
    }
}

/// The coherent unit to write instead of `name` and the factor that converts a value,
/// for prefixed SI units and the common foreign ones.
fn conversion(name: &str) -> Option<(&'static str, String)> {
    const FOREIGN: [(&str, &str, f64); 31] = [
        ("g", "kg", 1e-3),
        ("t", "kg", 1e3),
        ("lb", "kg", 0.453_592_37),
        ("deg", "rad", std::f64::consts::PI / 180.0),
        ("degree", "rad", std::f64::consts::PI / 180.0),
        ("degrees", "rad", std::f64::consts::PI / 180.0),
        ("rev", "rad", 2.0 * std::f64::consts::PI),
        ("rpm", "rad/s", 2.0 * std::f64::consts::PI / 60.0),
        ("min", "s", 60.0),
        ("h", "s", 3600.0),
        ("hr", "s", 3600.0),
        ("hour", "s", 3600.0),
        ("hours", "s", 3600.0),
        ("minute", "s", 60.0),
        ("minutes", "s", 60.0),
        ("sec", "s", 1.0),
        ("ft", "m", 0.3048),
        ("inch", "m", 0.0254),
        ("mi", "m", 1609.344),
        ("mile", "m", 1609.344),
        ("L", "m^3", 1e-3),
        ("l", "m^3", 1e-3),
        ("bar", "Pa", 1e5),
        ("atm", "Pa", 101_325.0),
        ("psi", "Pa", 6_894.757_293_168),
        ("lbf", "N", 4.448_221_615_260_5),
        ("kgf", "N", 9.806_65),
        ("cal", "J", 4.184),
        ("Wh", "J", 3600.0),
        ("kWh", "J", 3.6e6),
        ("mph", "m/s", 0.447_04),
    ];
    const PREFIXES: [(&str, i32); 21] = [
        ("Q", 30),
        ("R", 27),
        ("Y", 24),
        ("Z", 21),
        ("E", 18),
        ("P", 15),
        ("T", 12),
        ("G", 9),
        ("M", 6),
        ("k", 3),
        ("h", 2),
        ("da", 1),
        ("d", -1),
        ("c", -2),
        ("m", -3),
        ("u", -6),
        ("µ", -6),
        ("μ", -6),
        ("n", -9),
        ("p", -12),
        ("f", -15),
    ];
    if UNITS.iter().any(|(s, _)| *s == name) {
        return None;
    }
    if let Some(&(_, coherent, factor)) = FOREIGN.iter().find(|(f, _, _)| *f == name) {
        return Some((coherent, number(factor)));
    }
    for &(prefix, power) in &PREFIXES {
        let Some(rest) = name.strip_prefix(prefix) else {
            continue;
        };
        if rest == "g" {
            return Some(("kg", number(10f64.powi(power - 3))));
        }
        if let Some(&(symbol, _)) = UNITS.iter().find(|(s, _)| *s == rest && *s != "kg") {
            return Some((symbol, number(10f64.powi(power))));
        }
    }
    None
}

/// `Nm` as `N` and `m`: two unit symbols written without the `*` between them.
fn product_of_two(name: &str) -> Option<(&'static str, &'static str)> {
    (1..name.len())
        .filter(|&i| name.is_char_boundary(i))
        .find_map(|i| {
            let (a, b) = name.split_at(i);
            let unit = |x: &str| UNITS.iter().find(|(s, _)| *s == x).map(|(s, _)| *s);
            Some((unit(a)?, unit(b)?))
        })
}

/// A conversion factor as a reader writes it: `0.001`, `1e-9`, `0.017453292519943295`.
fn number(x: f64) -> String {
    if x != 0.0 && !(1e-4..1e6).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dimensions_print_in_base_units_with_their_common_names() {
        assert_eq!(Dim::JOULE.describe(), "J (kg·m²·s⁻²)");
        assert_eq!(Dim([0, 1, -1, 0, 0, 0, 0]).describe(), "m·s⁻¹");
        assert_eq!(Dim::ONE.describe(), "dimensionless");
        assert_eq!(Dim::JOULE.to_string(), "kg·m²·s⁻²");
        assert_eq!(Dim::ONE.to_string(), "dimensionless");
        assert_eq!(Dim([0, 0, -12, 0, 0, 0, 0]).to_string(), "s⁻¹²");
    }

    #[test]
    fn prefixed_and_foreign_units_say_what_to_write() {
        assert_eq!(conversion("mm"), Some(("m", "0.001".into())));
        assert_eq!(conversion("g"), Some(("kg", "0.001".into())));
        assert_eq!(conversion("mg"), Some(("kg", "1e-6".into())));
        assert_eq!(conversion("ms"), Some(("s", "0.001".into())));
        assert_eq!(conversion("kN"), Some(("N", "1000".into())));
        assert_eq!(conversion("nm"), Some(("m", "1e-9".into())));
        assert_eq!(
            conversion("deg"),
            Some(("rad", "0.017453292519943295".into()))
        );
        assert_eq!(conversion("kg"), None);
        assert_eq!(conversion("furlong"), None);
        assert_eq!(product_of_two("Nm"), Some(("N", "m")));
        assert!(not_coherent("mm").contains("(1 mm = 0.001 m)"));
        assert!(not_coherent("meters").contains("write its symbol, `m`"));
        assert!(not_coherent("T").contains("write it as `kg/(A*s^2)`"));
        assert!(not_coherent("S").contains("or did you mean `s`?"));
        assert!(not_coherent("furlong").contains("the derived units `N J W Pa Hz C V rad`"));
        assert!(not_coherent("Kg").contains("did you mean `kg`?"));
        assert!(not_coherent("m·s").contains("written with `*`"));
        assert!(not_coherent("hours").contains("(1 hours = 3600 s)"));
    }

    #[test]
    fn units_keep_their_symbols_and_compose_per_second() {
        let n = Unit::symbol("N", Dim::NEWTON);
        let m = Unit::symbol("m", Dim::METRE);
        let torque = n.times(m.clone(), 1);
        assert_eq!(torque.text(), "N*m");
        assert_eq!(torque.per_second().text(), "N*m/s");
        assert_eq!(m.per_second().per_second().text(), "m/s^2");
        assert_eq!(Unit::one().per_second().text(), "1/s");
        assert_eq!(Unit::symbol("rad", Dim::ONE).per_second().text(), "rad/s");
        let s = Unit::symbol("s", Dim::SECOND);
        assert_eq!(m.clone().times(s.clone(), 1).per_second().text(), "m");
        let pressure = Unit::symbol("kg", Dim::KILOGRAM).times(m.times(s.power(2), 1), -1);
        assert_eq!(pressure.text(), "kg/(m*s^2)");
        assert_eq!(pressure.dim, Dim::PASCAL);
    }
}
