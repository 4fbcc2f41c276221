//! The serialized query vocabulary: the fifteen condition operators, the two connectors, and the
//! normalisation that gives every condition an explicit connector.

use std::fmt;

/// One of the fifteen condition operators of the serialized query form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operator {
    Equals,
    Not,
    Above,
    Below,
    From,
    To,
    Between,
    Any,
    None,
    Like,
    Glob,
    Starts,
    Ends,
    Absent,
    Present,
}

impl Operator {
    /// Every operator, in the order the tool advertises them.
    pub const ALL: [Operator; 15] = [
        Operator::Equals,
        Operator::Not,
        Operator::Above,
        Operator::Below,
        Operator::From,
        Operator::To,
        Operator::Between,
        Operator::Any,
        Operator::None,
        Operator::Like,
        Operator::Glob,
        Operator::Starts,
        Operator::Ends,
        Operator::Absent,
        Operator::Present,
    ];

    /// The wire name of the operator.
    pub fn name(self) -> &'static str {
        match self {
            Operator::Equals => "equals",
            Operator::Not => "not",
            Operator::Above => "above",
            Operator::Below => "below",
            Operator::From => "from",
            Operator::To => "to",
            Operator::Between => "between",
            Operator::Any => "any",
            Operator::None => "none",
            Operator::Like => "like",
            Operator::Glob => "glob",
            Operator::Starts => "starts",
            Operator::Ends => "ends",
            Operator::Absent => "absent",
            Operator::Present => "present",
        }
    }

    /// Reads a wire name; anything outside the vocabulary is `None`.
    pub fn parse(name: &str) -> Option<Operator> {
        Operator::ALL
            .into_iter()
            .find(|operator| operator.name() == name)
    }
}

/// How a condition joins the one after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Connector {
    #[default]
    And,
    Or,
}

impl Connector {
    /// The wire name of the connector.
    pub fn name(self) -> &'static str {
        match self {
            Connector::And => "and",
            Connector::Or => "or",
        }
    }

    /// Reads a wire name; anything but `and` / `or` is `None`.
    pub fn parse(name: &str) -> Option<Connector> {
        match name {
            "and" => Some(Connector::And),
            "or" => Some(Connector::Or),
            _ => None,
        }
    }
}

/// One normalised condition: a known operator and an explicit connector.
#[derive(Debug, Clone, PartialEq)]
pub struct Condition<V> {
    pub column: String,
    pub operator: Operator,
    pub values: Vec<V>,
    pub connector: Connector,
}

/// Why a serialized condition could not be normalised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueryError {
    /// The operator is not one of the fifteen.
    Operator { index: usize, name: String },
    /// The connector is neither `and` nor `or`.
    Connector { index: usize, name: String },
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueryError::Operator { index, name } => {
                write!(f, "condition {index}: unknown operator {name:?}")
            }
            QueryError::Connector { index, name } => {
                write!(
                    f,
                    "condition {index}: connector must be \"and\" or \"or\", not {name:?}"
                )
            }
        }
    }
}

impl std::error::Error for QueryError {}

/// A serialized condition as read off the wire: names still unchecked, connector optional.
#[derive(Debug, Clone, PartialEq)]
pub struct RawCondition<V> {
    pub column: String,
    pub operator: String,
    pub values: Vec<V>,
    pub connector: Option<String>,
}

/// Checks each condition's operator and connector, defaulting an omitted connector to `and`.
pub fn normalize_conditions<V>(
    conditions: Vec<RawCondition<V>>,
) -> Result<Vec<Condition<V>>, QueryError> {
    conditions
        .into_iter()
        .enumerate()
        .map(|(index, raw)| {
            let operator = Operator::parse(&raw.operator).ok_or_else(|| QueryError::Operator {
                index,
                name: raw.operator.clone(),
            })?;
            let connector = match raw.connector.as_deref() {
                None => Connector::And,
                Some(name) => Connector::parse(name).ok_or_else(|| QueryError::Connector {
                    index,
                    name: name.to_owned(),
                })?,
            };
            Ok(Condition {
                column: raw.column,
                operator,
                values: raw.values,
                connector,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(operator: &str, connector: Option<&str>) -> RawCondition<i32> {
        RawCondition {
            column: "age".to_owned(),
            operator: operator.to_owned(),
            values: vec![18],
            connector: connector.map(str::to_owned),
        }
    }

    #[test]
    fn an_omitted_connector_becomes_and() {
        let normalized = normalize_conditions(vec![raw("from", None)]).unwrap();
        assert_eq!(normalized[0].connector, Connector::And);
        assert_eq!(normalized[0].operator, Operator::From);
        assert_eq!(normalized[0].values, vec![18]);
    }

    #[test]
    fn a_given_connector_is_kept() {
        let normalized =
            normalize_conditions(vec![raw("equals", Some("or")), raw("below", Some("and"))])
                .unwrap();
        assert_eq!(normalized[0].connector, Connector::Or);
        assert_eq!(normalized[1].connector, Connector::And);
    }

    #[test]
    fn every_operator_round_trips_its_name() {
        for operator in Operator::ALL {
            assert_eq!(Operator::parse(operator.name()), Some(operator));
        }
        assert_eq!(Operator::parse("EQUALS"), None);
        assert_eq!(Operator::parse("drop table"), None);
    }

    #[test]
    fn unknown_names_are_reported_with_their_position() {
        let error =
            normalize_conditions(vec![raw("equals", None), raw("matches", None)]).unwrap_err();
        assert_eq!(
            error,
            QueryError::Operator {
                index: 1,
                name: "matches".to_owned()
            }
        );
        let error = normalize_conditions(vec![raw("equals", Some("xor"))]).unwrap_err();
        assert!(error.to_string().contains("xor"));
    }

    #[test]
    fn an_empty_list_stays_empty() {
        assert!(normalize_conditions::<i32>(Vec::new()).unwrap().is_empty());
    }
}
