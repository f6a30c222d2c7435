//! The side query: the request that asks a model which memories to inject this turn
//! ([`request`]), and the reading of its answer ([`answer`]).

pub mod answer;
pub mod request;
