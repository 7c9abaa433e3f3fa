//! A scenario value that may be written once or as a list: `dscp: EF` or `dscp: [EF, AF41]`.

use super::tagged::nested;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use std::borrow::Cow;

/// One value or a list of values, always used as a list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OneOrMany<T>(pub Vec<T>);

impl<'de, T: DeserializeOwned> Deserialize<'de> for OneOrMany<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        let items =
            if value.is_array() { nested::<Vec<T>>(value) } else { nested::<T>(value).map(|one| vec![one]) };
        items.map(OneOrMany).map_err(serde::de::Error::custom)
    }
}

impl<T: JsonSchema> JsonSchema for OneOrMany<T> {
    fn schema_name() -> Cow<'static, str> {
        format!("OneOrMany_{}", T::schema_name()).into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let one = generator.subschema_for::<T>().to_value();
        schemars::json_schema!({ "anyOf": [one, { "type": "array", "items": one }] })
    }
}
