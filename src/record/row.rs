//! Typed rows: a `#[derive(Serialize)]` struct of a command's output becomes a [`Record`], its fields in
//! declaration order. A string is the field's value as it is, a number or a boolean its `Display` text, and
//! `None` leaves the field out (a CSV with fixed columns then shows an empty cell, [`Record::with_columns`]);
//! the columns of a row type are its field names ([`columns`]). Anything else (nested structs, sequences,
//! maps) is refused: a row is flat.

use super::Record;
use serde::ser::{self, Impossible, Serialize, SerializeStruct, Serializer};
use std::fmt;

/// A row struct as a record (module doc). Errors only for a type that is not a flat struct of scalars,
/// which is a programming error: hence `Internal`.
pub fn row<T: Serialize>(value: &T) -> crate::error::Fallible<Record> {
    value.serialize(Fields { all: false }).map_err(|e| crate::err!(Internal, "a row that is not flat: {e}"))
}

/// The field names of a row type, in declaration order (a `Default` value's fields, `None` ones included).
pub fn columns<T: Serialize + Default>() -> Vec<String> {
    match T::default().serialize(Fields { all: true }) {
        Ok(r) => r.fields.into_iter().map(|(k, _)| k).collect(),
        Err(_) => Vec::new(),
    }
}

#[derive(Debug)]
pub struct RowError(String);

impl fmt::Display for RowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RowError {}

impl ser::Error for RowError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        RowError(msg.to_string())
    }
}

fn refuse<T>(what: &str) -> Result<T, RowError> {
    Err(RowError(format!("{what} where a flat struct of scalars was expected")))
}

/// The top level: a struct, whose fields it collects (`all`: `None` fields too, as empty values).
struct Fields {
    all: bool,
}

/// A struct's fields as they are serialized.
struct Collect {
    all: bool,
    record: Record,
}

impl SerializeStruct for Collect {
    type Ok = Record;
    type Error = RowError;

    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<(), RowError> {
        match value.serialize(Scalar)? {
            Some(v) => self.record.fields.push((key.to_string(), v)),
            None if self.all => self.record.fields.push((key.to_string(), String::new())),
            None => {}
        }
        Ok(())
    }

    fn end(self) -> Result<Record, RowError> {
        Ok(self.record)
    }
}

/// Refuses every top-level form but a struct.
macro_rules! refuse_scalars {
    ($ok:ty; $($name:ident($($arg:ty),*)),*) => {
        $(fn $name(self, $(_: $arg),*) -> Result<$ok, RowError> { refuse(stringify!($name)) })*
    };
}

/// Refuses the compound forms (sequences, tuples, maps, variants with values): a row is flat.
macro_rules! refuse_compounds {
    ($ok:ty) => {
        fn serialize_newtype_variant<T: ?Sized + Serialize>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<$ok, RowError> {
            refuse("a variant with a value")
        }
        fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, RowError> {
            refuse("a sequence")
        }
        fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, RowError> {
            refuse("a tuple")
        }
        fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, RowError> {
            refuse("a tuple struct")
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleVariant, RowError> {
            refuse("a tuple variant")
        }
        fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, RowError> {
            refuse("a map")
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStructVariant, RowError> {
            refuse("a struct variant")
        }
    };
}

impl Serializer for Fields {
    type Ok = Record;
    type Error = RowError;
    type SerializeSeq = Impossible<Record, RowError>;
    type SerializeTuple = Impossible<Record, RowError>;
    type SerializeTupleStruct = Impossible<Record, RowError>;
    type SerializeTupleVariant = Impossible<Record, RowError>;
    type SerializeMap = Impossible<Record, RowError>;
    type SerializeStruct = Collect;
    type SerializeStructVariant = Impossible<Record, RowError>;

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Collect, RowError> {
        Ok(Collect { all: self.all, record: Record::new() })
    }

    refuse_scalars!(Record; serialize_bool(bool), serialize_i8(i8), serialize_i16(i16), serialize_i32(i32),
        serialize_i64(i64), serialize_u8(u8), serialize_u16(u16), serialize_u32(u32), serialize_u64(u64),
        serialize_f32(f32), serialize_f64(f64), serialize_char(char), serialize_str(&str), serialize_bytes(&[u8]),
        serialize_none(), serialize_unit(), serialize_unit_struct(&'static str),
        serialize_unit_variant(&'static str, u32, &'static str));

    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<Record, RowError> {
        refuse("an option")
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, _: &T) -> Result<Record, RowError> {
        refuse("a newtype")
    }
    refuse_compounds!(Record);
}

/// One field's value: its text, or None for `None` and `()`.
struct Scalar;

type Text = Option<String>;

impl Serializer for Scalar {
    type Ok = Text;
    type Error = RowError;
    type SerializeSeq = Impossible<Text, RowError>;
    type SerializeTuple = Impossible<Text, RowError>;
    type SerializeTupleStruct = Impossible<Text, RowError>;
    type SerializeTupleVariant = Impossible<Text, RowError>;
    type SerializeMap = Impossible<Text, RowError>;
    type SerializeStruct = Impossible<Text, RowError>;
    type SerializeStructVariant = Impossible<Text, RowError>;

    fn serialize_bool(self, v: bool) -> Result<Text, RowError> {
        Ok(Some(v.to_string()))
    }
    fn serialize_i8(self, v: i8) -> Result<Text, RowError> {
        Ok(Some(v.to_string()))
    }
    fn serialize_i16(self, v: i16) -> Result<Text, RowError> {
        Ok(Some(v.to_string()))
    }
    fn serialize_i32(self, v: i32) -> Result<Text, RowError> {
        Ok(Some(v.to_string()))
    }
    fn serialize_i64(self, v: i64) -> Result<Text, RowError> {
        Ok(Some(v.to_string()))
    }
    fn serialize_u8(self, v: u8) -> Result<Text, RowError> {
        Ok(Some(v.to_string()))
    }
    fn serialize_u16(self, v: u16) -> Result<Text, RowError> {
        Ok(Some(v.to_string()))
    }
    fn serialize_u32(self, v: u32) -> Result<Text, RowError> {
        Ok(Some(v.to_string()))
    }
    fn serialize_u64(self, v: u64) -> Result<Text, RowError> {
        Ok(Some(v.to_string()))
    }
    fn serialize_f32(self, v: f32) -> Result<Text, RowError> {
        Ok(Some(v.to_string()))
    }
    fn serialize_f64(self, v: f64) -> Result<Text, RowError> {
        Ok(Some(v.to_string()))
    }
    fn serialize_char(self, v: char) -> Result<Text, RowError> {
        Ok(Some(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Text, RowError> {
        Ok(Some(v.to_string()))
    }
    fn serialize_none(self) -> Result<Text, RowError> {
        Ok(None)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<Text, RowError> {
        v.serialize(Scalar)
    }
    fn serialize_unit(self) -> Result<Text, RowError> {
        Ok(None)
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<Text, RowError> {
        Ok(Some(variant.to_string()))
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, v: &T) -> Result<Text, RowError> {
        v.serialize(Scalar)
    }

    refuse_scalars!(Text; serialize_bytes(&[u8]), serialize_unit_struct(&'static str));

    refuse_compounds!(Text);

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, RowError> {
        refuse("a nested struct")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;

    #[derive(Serialize, Default)]
    struct Example {
        target: String,
        count: u64,
        ratio: f64,
        exact: bool,
        detail: Option<String>,
        note: Option<&'static str>,
    }

    #[test]
    fn fields_in_declaration_order_none_left_out() {
        let r = row(&Example { target: "10 x dgauss".into(), count: 3, ratio: 0.5, exact: true, detail: None, note: Some("n") }).unwrap();
        let got: Vec<(&str, &str)> = r.fields.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(got, [("target", "10 x dgauss"), ("count", "3"), ("ratio", "0.5"), ("exact", "true"), ("note", "n")]);
    }

    #[test]
    fn columns_are_the_field_names() {
        assert_eq!(columns::<Example>(), ["target", "count", "ratio", "exact", "detail", "note"]);
    }

    #[test]
    fn a_row_that_is_not_flat_is_refused() {
        #[derive(Serialize)]
        struct Nested {
            inner: Example,
        }
        let e = row(&Nested { inner: Example::default() }).unwrap_err();
        assert!(e.to_string().contains("a nested struct"), "{e}");
        let e = row(&vec![1, 2]).unwrap_err();
        assert!(e.to_string().contains("a sequence"), "{e}");
    }
}
