//! A minimal pickle interpreter that never executes code.
//!
//! Python's `pickle` rebuilds objects by *calling* the callables a stream names (`GLOBAL` /
//! `STACK_GLOBAL` then `REDUCE`, `BUILD`, `NEWOBJ`, `INST`, `OBJ`): loading an untrusted
//! `torch.save` file with it runs whatever the file says (`os.system`, `builtins.eval`, ...).
//! This interpreter has no way to call anything: it is a stack machine over plain data
//! ([`Value`]) and recognises by name only the few callables that rebuild tensors and
//! containers:
//!
//! * `torch._utils._rebuild_tensor_v2` (and `_rebuild_tensor`) → [`Value::Tensor`] (a
//!   description: storage, offset, shape, strides; no data is read here);
//! * `torch._utils._rebuild_parameter` / `_rebuild_parameter_with_state` → the wrapped tensor;
//! * `collections.OrderedDict` → a dict; persistent ids `('storage', torch.<T>Storage, key,
//!   location, numel)` → [`Value::Storage`] (typed storages; `torch.UntypedStorage` is bytes).
//!
//! Every other global (`os.system`, `builtins.eval`, `subprocess.Popen`, Lightning's
//! `AttributeDict`, callbacks, ...) becomes [`Value::Opaque`]: calling it, building it or
//! instantiating it yields another opaque value, and items set on it are dropped. Opcodes that
//! need an extension registry or out-of-band buffers (`EXT1/2/4`, `NEXT_BUFFER`) are refused.
//!
//! Bounds: the stream is at most [`MAX_PICKLE_BYTES`]; every length is checked against the
//! bytes left before anything is allocated; strings / bytes / tuples are reference-counted so
//! `DUP` / `GET` cost O(1); the stack, memo and container item counts are capped
//! ([`MAX_ITEMS`]). The interpreter is a loop, not a recursion; code that walks the result
//! ([`Unpickled::get`], the state-dict extraction) is depth-limited.
//!
//! Written here rather than taken from a crate: `serde-pickle` rejects or maps globals in ways
//! that cannot express "describe a tensor rebuild, never call", and the Python-compatible
//! interpreters (e.g. in `candle`) pull in a framework. This module is ~500 lines with no
//! dependency and its guarantee (no callable is ever invoked) holds by construction: there is no
//! code path that maps a name to behaviour other than the table in `reduce`.
use std::collections::HashMap;
use std::rc::Rc;

/// Largest `data.pkl` accepted (the pickle of a 24-layer model's state dict is ~100 kB; a
/// Lightning checkpoint with optimizer state a few MB).
pub const MAX_PICKLE_BYTES: usize = 256 << 20;
/// Largest number of stack entries, memo entries, or items in one container.
pub const MAX_ITEMS: usize = 1 << 22;

/// Element type of a storage, from its `torch.<T>Storage` class (or the `dtype` of an untyped one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DType {
    /// `torch.float32` (FloatStorage).
    F32,
    /// `torch.float16` (HalfStorage).
    F16,
    /// `torch.bfloat16` (BFloat16Storage).
    BF16,
    /// `torch.float64` (DoubleStorage).
    F64,
    /// `torch.int64` (LongStorage).
    I64,
    /// `torch.int32` (IntStorage).
    I32,
    /// `torch.int16` (ShortStorage).
    I16,
    /// `torch.int8` (CharStorage).
    I8,
    /// `torch.uint8` (ByteStorage, UntypedStorage).
    U8,
    /// `torch.bool` (BoolStorage).
    Bool,
}

impl DType {
    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            DType::F64 | DType::I64 => 8,
            DType::F32 | DType::I32 => 4,
            DType::F16 | DType::BF16 | DType::I16 => 2,
            DType::I8 | DType::U8 | DType::Bool => 1,
        }
    }
    /// The dtype of a `torch.<name>` storage class, if it is one.
    pub fn from_storage_class(name: &str) -> Option<DType> {
        Some(match name {
            "FloatStorage" => DType::F32,
            "HalfStorage" => DType::F16,
            "BFloat16Storage" => DType::BF16,
            "DoubleStorage" => DType::F64,
            "LongStorage" => DType::I64,
            "IntStorage" => DType::I32,
            "ShortStorage" => DType::I16,
            "CharStorage" => DType::I8,
            "ByteStorage" | "UntypedStorage" => DType::U8,
            "BoolStorage" => DType::Bool,
            _ => return None,
        })
    }
}

/// A storage named by a persistent id: the file `<archive>/data/<key>` holding `numel`
/// elements of `dtype`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StorageRef {
    /// The key (file name under `data/`).
    pub key: String,
    /// Element type.
    pub dtype: DType,
    /// Number of elements the pickle says the storage holds.
    pub numel: usize,
}

/// A tensor description from `_rebuild_tensor_v2(storage, offset, size, stride, ...)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorRef {
    /// The storage it views.
    pub storage: StorageRef,
    /// Offset in elements into the storage.
    pub offset: usize,
    /// Shape.
    pub shape: Vec<usize>,
    /// Strides in elements.
    pub stride: Vec<usize>,
}

/// A value on the interpreter's stack. Containers that pickle mutates after creation (lists,
/// dicts) live in an arena and are referred to by index ([`Value::List`], [`Value::Dict`]).
#[derive(Debug, Clone)]
pub enum Value {
    /// `None`.
    None,
    /// `True` / `False`.
    Bool(bool),
    /// An integer that fits i64.
    Int(i64),
    /// A float.
    Float(f64),
    /// A str.
    Str(Rc<str>),
    /// bytes / bytearray.
    Bytes(Rc<[u8]>),
    /// A tuple.
    Tuple(Rc<[Value]>),
    /// A list (index into the arena of [`Unpickled`]).
    List(usize),
    /// A dict or `OrderedDict` (index into the arena).
    Dict(usize),
    /// A global name that was never resolved (`module`, `name`).
    Global(Rc<(String, String)>),
    /// A storage from a persistent id.
    Storage(Rc<StorageRef>),
    /// A tensor description.
    Tensor(Rc<TensorRef>),
    /// Anything else, with a short description (e.g. `call of os.system`). Never called.
    Opaque(Rc<str>),
}

impl Value {
    fn kind(&self) -> &'static str {
        match self {
            Value::None => "None",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::Bytes(_) => "bytes",
            Value::Tuple(_) => "tuple",
            Value::List(_) => "list",
            Value::Dict(_) => "dict",
            Value::Global(_) => "global",
            Value::Storage(_) => "storage",
            Value::Tensor(_) => "tensor",
            Value::Opaque(_) => "opaque object",
        }
    }
    /// The string, if this is a str.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }
}

#[derive(Debug)]
enum Obj {
    List(Vec<Value>),
    Dict(Vec<(Value, Value)>),
}

/// The result of interpreting a pickle: the top value and the arena its containers live in.
#[derive(Debug)]
pub struct Unpickled {
    arena: Vec<Obj>,
    /// The value the stream's `STOP` returned.
    pub root: Value,
    /// Globals the stream named that are not in the tensor-rebuild table (e.g.
    /// `os.system`), sorted, deduplicated: reported, never called.
    pub ignored_globals: Vec<String>,
}

impl Unpickled {
    /// Items of a dict value, in insertion order (`None` if `v` is not a dict).
    pub fn dict_items(&self, v: &Value) -> Option<&[(Value, Value)]> {
        match v {
            Value::Dict(i) => match self.arena.get(*i) {
                Some(Obj::Dict(items)) => Some(items),
                _ => None,
            },
            _ => None,
        }
    }
    /// Items of a list value.
    pub fn list_items(&self, v: &Value) -> Option<&[Value]> {
        match v {
            Value::List(i) => match self.arena.get(*i) {
                Some(Obj::List(items)) => Some(items),
                _ => None,
            },
            _ => None,
        }
    }
    /// The value of the last `key` entry of a dict value with str keys.
    pub fn get<'a>(&'a self, dict: &Value, key: &str) -> Option<&'a Value> {
        self.dict_items(dict)?.iter().rev().find(|(k, _)| k.as_str() == Some(key)).map(|(_, v)| v)
    }
    /// Short type description of a value (for error messages).
    pub fn kind(&self, v: &Value) -> String {
        match v {
            Value::Opaque(d) => format!("opaque object ({d})"),
            other => other.kind().to_owned(),
        }
    }
}

/// Why interpretation stopped: byte offset and reason.
#[derive(Debug)]
pub struct PickleError {
    /// Byte offset of the opcode being executed.
    pub offset: usize,
    /// What went wrong.
    pub reason: String,
}

type R<T> = std::result::Result<T, PickleError>;

enum Slot {
    Mark,
    V(Value),
}

struct Vm<'a> {
    data: &'a [u8],
    pos: usize,
    op_at: usize,
    stack: Vec<Slot>,
    memo: HashMap<u64, Value>,
    arena: Vec<Obj>,
    arena_items: usize,
    ignored: std::collections::BTreeSet<String>,
}

/// Interprets `data` (a pickle stream of protocol 0-5) without executing anything.
///
/// # Errors
/// [`PickleError`] for a truncated stream, an unknown or refused opcode, a stack underflow,
/// a malformed tensor rebuild or persistent id, or a bound exceeded.
pub fn unpickle(data: &[u8]) -> R<Unpickled> {
    if data.len() > MAX_PICKLE_BYTES {
        return Err(PickleError {
            offset: 0,
            reason: format!("stream of {} bytes exceeds the limit of {MAX_PICKLE_BYTES}", data.len()),
        });
    }
    let mut vm = Vm {
        data,
        pos: 0,
        op_at: 0,
        stack: Vec::new(),
        memo: HashMap::new(),
        arena: Vec::new(),
        arena_items: 0,
        ignored: Default::default(),
    };
    let root = vm.run()?;
    Ok(Unpickled { arena: vm.arena, root, ignored_globals: vm.ignored.into_iter().collect() })
}

impl<'a> Vm<'a> {
    fn err<T>(&self, reason: impl Into<String>) -> R<T> {
        Err(PickleError { offset: self.op_at, reason: reason.into() })
    }
    fn take(&mut self, n: usize) -> R<&'a [u8]> {
        let end = match self.pos.checked_add(n) {
            Some(e) if e <= self.data.len() => e,
            _ => {
                return self.err(format!(
                    "truncated stream: needs {n} more bytes, {} left",
                    self.data.len().saturating_sub(self.pos)
                ))
            }
        };
        let s = &self.data[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn u8(&mut self) -> R<u8> {
        Ok(self.take(1)?[0])
    }
    fn arr<const N: usize>(&mut self) -> R<[u8; N]> {
        let s = self.take(N)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }
    fn line(&mut self) -> R<&'a [u8]> {
        let rest = &self.data[self.pos.min(self.data.len())..];
        match rest.iter().position(|&b| b == b'\n') {
            Some(i) => {
                let s = &rest[..i];
                self.pos += i + 1;
                Ok(s)
            }
            None => self.err("truncated stream: unterminated text line"),
        }
    }
    fn len_checked(&self, n: u64) -> R<usize> {
        let left = self.data.len().saturating_sub(self.pos) as u64;
        if n > left {
            return self.err(format!("truncated stream: length {n} exceeds the {left} bytes left"));
        }
        Ok(n as usize)
    }
    fn push(&mut self, v: Value) -> R<()> {
        if self.stack.len() >= MAX_ITEMS {
            return self.err(format!("stack deeper than {MAX_ITEMS} entries"));
        }
        self.stack.push(Slot::V(v));
        Ok(())
    }
    fn pop(&mut self) -> R<Value> {
        match self.stack.pop() {
            Some(Slot::V(v)) => Ok(v),
            Some(Slot::Mark) => self.err("unexpected MARK on the stack"),
            None => self.err("stack underflow"),
        }
    }
    fn top(&self) -> R<&Value> {
        match self.stack.last() {
            Some(Slot::V(v)) => Ok(v),
            Some(Slot::Mark) => self.err("unexpected MARK on the stack"),
            None => self.err("stack underflow"),
        }
    }
    fn pop_mark(&mut self) -> R<Vec<Value>> {
        let Some(at) = self.stack.iter().rposition(|s| matches!(s, Slot::Mark)) else {
            return self.err("no MARK on the stack");
        };
        let items = self
            .stack
            .split_off(at + 1)
            .into_iter()
            .filter_map(|s| match s {
                Slot::V(v) => Some(v),
                Slot::Mark => None,
            })
            .collect();
        self.stack.pop();
        Ok(items)
    }
    fn new_obj(&mut self, o: Obj) -> R<usize> {
        if self.arena.len() >= MAX_ITEMS {
            return self.err(format!("more than {MAX_ITEMS} containers"));
        }
        self.arena.push(o);
        Ok(self.arena.len() - 1)
    }
    fn count_items(&mut self, n: usize) -> R<()> {
        self.arena_items = self.arena_items.saturating_add(n);
        if self.arena_items > 4 * MAX_ITEMS {
            return self.err(format!("more than {} container items in all", 4 * MAX_ITEMS));
        }
        Ok(())
    }
    fn memo_put(&mut self, key: u64) -> R<()> {
        let v = self.top()?.clone();
        if self.memo.len() >= MAX_ITEMS && !self.memo.contains_key(&key) {
            return self.err(format!("memo larger than {MAX_ITEMS} entries"));
        }
        self.memo.insert(key, v);
        Ok(())
    }
    fn memo_get(&mut self, key: u64) -> R<()> {
        match self.memo.get(&key) {
            Some(v) => {
                let v = v.clone();
                self.push(v)
            }
            None => self.err(format!("memo key {key} was never stored")),
        }
    }
    fn str_of(&self, b: &[u8]) -> R<Rc<str>> {
        match std::str::from_utf8(b) {
            Ok(s) => Ok(Rc::from(s)),
            Err(_) => self.err("string is not valid UTF-8"),
        }
    }
    /// Appends `items` to the list `target`; dropped when `target` is opaque.
    fn extend_list(&mut self, target: &Value, items: Vec<Value>) -> R<()> {
        self.count_items(items.len())?;
        match target {
            Value::List(i) => match self.arena.get_mut(*i) {
                Some(Obj::List(l)) if l.len() + items.len() <= MAX_ITEMS => {
                    l.extend(items);
                    Ok(())
                }
                Some(Obj::List(_)) => self.err(format!("list longer than {MAX_ITEMS} items")),
                _ => self.err("APPEND target is not a list"),
            },
            Value::Opaque(_) => Ok(()),
            other => self.err(format!("APPEND on a {}", other.kind())),
        }
    }
    fn set_items(&mut self, target: &Value, pairs: Vec<(Value, Value)>) -> R<()> {
        self.count_items(pairs.len())?;
        match target {
            Value::Dict(i) => match self.arena.get_mut(*i) {
                Some(Obj::Dict(d)) if d.len() + pairs.len() <= MAX_ITEMS => {
                    d.extend(pairs);
                    Ok(())
                }
                Some(Obj::Dict(_)) => self.err(format!("dict larger than {MAX_ITEMS} items")),
                _ => self.err("SETITEM target is not a dict"),
            },
            Value::Opaque(_) => Ok(()),
            other => self.err(format!("SETITEM on a {}", other.kind())),
        }
    }
    fn global(&mut self, module: &str, name: &str) -> Value {
        Value::Global(Rc::new((module.to_owned(), name.to_owned())))
    }
    fn note_ignored(&mut self, g: &(String, String)) {
        if !is_known(&g.0, &g.1) && self.ignored.len() < 1000 {
            self.ignored.insert(format!("{}.{}", g.0, g.1));
        }
    }

    /// `callable(*args)` for REDUCE / NEWOBJ: only the tensor-rebuild table does anything.
    fn reduce(&mut self, callable: Value, args: Value) -> R<Value> {
        let g = match &callable {
            Value::Global(g) => g.clone(),
            other => return Ok(Value::Opaque(Rc::from(format!("call of a {}", other.kind())))),
        };
        let args: Rc<[Value]> = match args {
            Value::Tuple(t) => t,
            other => return self.err(format!("{}.{} called with a {} instead of a tuple", g.0, g.1, other.kind())),
        };
        match (g.0.as_str(), g.1.as_str()) {
            ("torch._utils", "_rebuild_tensor_v2") | ("torch._utils", "_rebuild_tensor") => self.rebuild_tensor(&args),
            ("torch._utils", "_rebuild_parameter") | ("torch._utils", "_rebuild_parameter_with_state") => {
                match args.first() {
                    Some(t @ Value::Tensor(_)) => Ok(t.clone()),
                    _ => self.err("_rebuild_parameter without a tensor argument"),
                }
            }
            ("collections", "OrderedDict") if args.is_empty() => {
                let i = self.new_obj(Obj::Dict(Vec::new()))?;
                Ok(Value::Dict(i))
            }
            _ => {
                self.note_ignored(&g);
                Ok(Value::Opaque(Rc::from(format!("result of {}.{} (never called)", g.0, g.1))))
            }
        }
    }

    fn usize_of(&self, v: &Value, what: &str) -> R<usize> {
        match v {
            Value::Int(i) if *i >= 0 => Ok(*i as usize),
            other => self.err(format!("{what} is a {} (expected a non-negative int)", other.kind())),
        }
    }
    fn usizes_of(&self, v: &Value, what: &str) -> R<Vec<usize>> {
        match v {
            Value::Tuple(t) if t.len() <= 64 => t.iter().map(|x| self.usize_of(x, what)).collect(),
            Value::Tuple(t) => self.err(format!("{what} has {} dimensions (limit 64)", t.len())),
            other => self.err(format!("{what} is a {} (expected a tuple)", other.kind())),
        }
    }
    fn rebuild_tensor(&mut self, args: &[Value]) -> R<Value> {
        if args.len() < 4 {
            return self.err(format!("_rebuild_tensor_v2 with {} arguments (expected >= 4)", args.len()));
        }
        let storage = match &args[0] {
            Value::Storage(s) => (**s).clone(),
            other => return self.err(format!("_rebuild_tensor_v2 storage argument is a {}", other.kind())),
        };
        let offset = self.usize_of(&args[1], "tensor storage offset")?;
        let shape = self.usizes_of(&args[2], "tensor size")?;
        let stride = self.usizes_of(&args[3], "tensor stride")?;
        if shape.len() != stride.len() {
            return self.err(format!("tensor size has {} dims but stride {}", shape.len(), stride.len()));
        }
        Ok(Value::Tensor(Rc::new(TensorRef { storage, offset, shape, stride })))
    }

    fn persistent_load(&mut self, pid: Value) -> R<Value> {
        let t = match pid {
            Value::Tuple(t) => t,
            other => return self.err(format!("persistent id is a {} (expected a tuple)", other.kind())),
        };
        if t.len() != 5 || t[0].as_str() != Some("storage") {
            return self.err("persistent id is not ('storage', type, key, location, numel)");
        }
        let dtype = match &t[1] {
            Value::Global(g) if g.0 == "torch" => match DType::from_storage_class(&g.1) {
                Some(d) => d,
                None => return self.err(format!("unsupported storage type torch.{}", g.1)),
            },
            other => return self.err(format!("storage type is a {} (expected torch.<T>Storage)", other.kind())),
        };
        let key = match &t[2] {
            Value::Str(s) if !s.is_empty() && s.len() <= 64 && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') => {
                s.to_string()
            }
            _ => return self.err("storage key is not a short alphanumeric string"),
        };
        let numel = self.usize_of(&t[4], "storage numel")?;
        Ok(Value::Storage(Rc::new(StorageRef { key, dtype, numel })))
    }

    fn run(&mut self) -> R<Value> {
        loop {
            self.op_at = self.pos;
            let op = self.u8()?;
            match op {
                0x80 => {
                    let p = self.u8()?;
                    if p > 5 {
                        return self.err(format!("unsupported pickle protocol {p}"));
                    }
                }
                0x95 => {
                    self.arr::<8>()?;
                }
                b'.' => {
                    let v = self.pop()?;
                    return Ok(v);
                }
                b'(' => {
                    if self.stack.len() >= MAX_ITEMS {
                        return self.err("stack too deep");
                    }
                    self.stack.push(Slot::Mark);
                }
                b'0' => {
                    if self.stack.pop().is_none() {
                        return self.err("stack underflow");
                    }
                }
                b'1' => {
                    self.pop_mark()?;
                }
                b'2' => {
                    let v = self.top()?.clone();
                    self.push(v)?;
                }
                b'N' => self.push(Value::None)?,
                0x88 => self.push(Value::Bool(true))?,
                0x89 => self.push(Value::Bool(false))?,
                b'J' => {
                    let v = i32::from_le_bytes(self.arr()?);
                    self.push(Value::Int(v.into()))?
                }
                b'K' => {
                    let v = self.u8()?;
                    self.push(Value::Int(v.into()))?
                }
                b'M' => {
                    let v = u16::from_le_bytes(self.arr()?);
                    self.push(Value::Int(v.into()))?
                }
                0x8a | 0x8b => {
                    let n = if op == 0x8a { u64::from(self.u8()?) } else { u64::from(u32::from_le_bytes(self.arr()?)) };
                    let n = self.len_checked(n)?;
                    let b = self.take(n)?;
                    let v = if n == 0 {
                        Value::Int(0)
                    } else if n <= 8 {
                        let neg = b[n - 1] & 0x80 != 0;
                        let mut a = [if neg { 0xff } else { 0 }; 8];
                        a[..n].copy_from_slice(b);
                        Value::Int(i64::from_le_bytes(a))
                    } else {
                        Value::Opaque(Rc::from("integer wider than 64 bits"))
                    };
                    self.push(v)?
                }
                b'I' | b'L' => {
                    let l = self.line()?;
                    let s = std::str::from_utf8(l).unwrap_or("").trim_end_matches('L');
                    let v = match s {
                        "01" => Value::Bool(true),
                        "00" => Value::Bool(false),
                        _ => match s.parse::<i64>() {
                            Ok(i) => Value::Int(i),
                            Err(_) => Value::Opaque(Rc::from("unparsed integer")),
                        },
                    };
                    self.push(v)?
                }
                b'G' => {
                    let v = f64::from_be_bytes(self.arr()?);
                    self.push(Value::Float(v))?
                }
                b'F' => {
                    let l = self.line()?;
                    match std::str::from_utf8(l).ok().and_then(|s| s.parse::<f64>().ok()) {
                        Some(v) => self.push(Value::Float(v))?,
                        None => return self.err("malformed FLOAT"),
                    }
                }
                b'X' | 0x8c | 0x8d => {
                    let n = match op {
                        b'X' => u64::from(u32::from_le_bytes(self.arr()?)),
                        0x8c => u64::from(self.u8()?),
                        _ => u64::from_le_bytes(self.arr()?),
                    };
                    let n = self.len_checked(n)?;
                    let b = self.take(n)?;
                    let s = self.str_of(b)?;
                    self.push(Value::Str(s))?
                }
                b'V' => {
                    // protocol 0 unicode (raw-unicode-escape); accepted for plain ASCII only
                    let l = self.line()?;
                    if !l.is_ascii() || l.contains(&b'\\') {
                        return self.err("protocol-0 UNICODE with escapes is not supported");
                    }
                    let s = self.str_of(l)?;
                    self.push(Value::Str(s))?
                }
                b'T' | b'U' | b'B' | b'C' | 0x8e | 0x96 => {
                    let n = match op {
                        b'T' | b'B' => u64::from(u32::from_le_bytes(self.arr()?)),
                        b'U' | b'C' => u64::from(self.u8()?),
                        _ => u64::from_le_bytes(self.arr()?),
                    };
                    let n = self.len_checked(n)?;
                    let b = self.take(n)?;
                    self.push(Value::Bytes(Rc::from(b)))?
                }
                b')' => self.push(Value::Tuple(Rc::from(Vec::new())))?,
                0x85..=0x87 => {
                    let n = usize::from(op - 0x84);
                    if self.stack.len() < n {
                        return self.err("stack underflow");
                    }
                    let mut items = Vec::with_capacity(n);
                    for _ in 0..n {
                        items.push(self.pop()?);
                    }
                    items.reverse();
                    self.push(Value::Tuple(Rc::from(items)))?
                }
                b't' => {
                    let items = self.pop_mark()?;
                    self.push(Value::Tuple(Rc::from(items)))?
                }
                b']' => {
                    let i = self.new_obj(Obj::List(Vec::new()))?;
                    self.push(Value::List(i))?
                }
                b'l' => {
                    let items = self.pop_mark()?;
                    self.count_items(items.len())?;
                    let i = self.new_obj(Obj::List(items))?;
                    self.push(Value::List(i))?
                }
                b'}' => {
                    let i = self.new_obj(Obj::Dict(Vec::new()))?;
                    self.push(Value::Dict(i))?
                }
                b'd' => {
                    let items = self.pop_mark()?;
                    let Some(pairs) = pairs_of(items) else { return self.err("DICT with an odd number of items") };
                    self.count_items(pairs.len())?;
                    let i = self.new_obj(Obj::Dict(pairs))?;
                    self.push(Value::Dict(i))?
                }
                0x8f => self.push(Value::Opaque(Rc::from("set")))?,
                0x90 => {
                    self.pop_mark()?;
                    // ADDITEMS: sets are kept opaque
                }
                0x91 => {
                    self.pop_mark()?;
                    self.push(Value::Opaque(Rc::from("frozenset")))?
                }
                b'a' => {
                    let v = self.pop()?;
                    let target = self.top()?.clone();
                    self.extend_list(&target, vec![v])?
                }
                b'e' => {
                    let items = self.pop_mark()?;
                    let target = self.top()?.clone();
                    self.extend_list(&target, items)?
                }
                b's' => {
                    let v = self.pop()?;
                    let k = self.pop()?;
                    let target = self.top()?.clone();
                    self.set_items(&target, vec![(k, v)])?
                }
                b'u' => {
                    let items = self.pop_mark()?;
                    let Some(pairs) = pairs_of(items) else { return self.err("SETITEMS with an odd number of items") };
                    let target = self.top()?.clone();
                    self.set_items(&target, pairs)?
                }
                b'p' => {
                    let l = self.line()?;
                    match std::str::from_utf8(l).ok().and_then(|s| s.parse::<u64>().ok()) {
                        Some(k) => self.memo_put(k)?,
                        None => return self.err("malformed PUT"),
                    }
                }
                b'q' => {
                    let k = self.u8()?;
                    self.memo_put(k.into())?
                }
                b'r' => {
                    let k = u32::from_le_bytes(self.arr()?);
                    self.memo_put(k.into())?
                }
                0x94 => {
                    let k = self.memo.len() as u64;
                    self.memo_put(k)?
                }
                b'g' => {
                    let l = self.line()?;
                    match std::str::from_utf8(l).ok().and_then(|s| s.parse::<u64>().ok()) {
                        Some(k) => self.memo_get(k)?,
                        None => return self.err("malformed GET"),
                    }
                }
                b'h' => {
                    let k = self.u8()?;
                    self.memo_get(k.into())?
                }
                b'j' => {
                    let k = u32::from_le_bytes(self.arr()?);
                    self.memo_get(k.into())?
                }
                b'c' => {
                    let m = self.line()?;
                    let n = self.line()?;
                    let (m, n) = (self.str_of(m)?, self.str_of(n)?);
                    let g = self.global(&m, &n);
                    self.push(g)?
                }
                0x93 => {
                    let n = self.pop()?;
                    let m = self.pop()?;
                    match (m.as_str(), n.as_str()) {
                        (Some(m), Some(n)) => {
                            let g = self.global(m, n);
                            self.push(g)?
                        }
                        _ => return self.err("STACK_GLOBAL with non-string module/name"),
                    }
                }
                b'R' => {
                    let args = self.pop()?;
                    let callable = self.pop()?;
                    let v = self.reduce(callable, args)?;
                    self.push(v)?
                }
                0x81 => {
                    let args = self.pop()?;
                    let cls = self.pop()?;
                    let v = match &cls {
                        Value::Global(g) if g.0 == "collections" && g.1 == "OrderedDict" => {
                            Value::Dict(self.new_obj(Obj::Dict(Vec::new()))?)
                        }
                        Value::Global(g) => {
                            let g = g.clone();
                            self.note_ignored(&g);
                            Value::Opaque(Rc::from(format!("instance of {}.{} (never constructed)", g.0, g.1)))
                        }
                        other => Value::Opaque(Rc::from(format!("instance of a {}", other.kind()))),
                    };
                    drop(args);
                    self.push(v)?
                }
                0x92 => {
                    let _kwargs = self.pop()?;
                    let _args = self.pop()?;
                    let cls = self.pop()?;
                    if let Value::Global(g) = &cls {
                        let g = g.clone();
                        self.note_ignored(&g);
                    }
                    self.push(Value::Opaque(Rc::from("NEWOBJ_EX instance (never constructed)")))?
                }
                b'o' => {
                    let mut items = self.pop_mark()?;
                    if items.is_empty() {
                        return self.err("OBJ without a class");
                    }
                    let cls = items.remove(0);
                    if let Value::Global(g) = &cls {
                        let g = g.clone();
                        self.note_ignored(&g);
                    }
                    self.push(Value::Opaque(Rc::from("OBJ instance (never constructed)")))?
                }
                b'i' => {
                    let m = self.line()?;
                    let n = self.line()?;
                    let (m, n) = (self.str_of(m)?, self.str_of(n)?);
                    self.pop_mark()?;
                    let g = (m.to_string(), n.to_string());
                    self.note_ignored(&g);
                    self.push(Value::Opaque(Rc::from(format!("INST of {m}.{n} (never constructed)"))))?
                }
                b'b' => {
                    // BUILD: the state is dropped; the object stays what it was (a dict, a
                    // tensor, an opaque value). Nothing is called.
                    let _state = self.pop()?;
                    self.top()?;
                }
                b'Q' => {
                    let pid = self.pop()?;
                    let v = self.persistent_load(pid)?;
                    self.push(v)?
                }
                b'P' => return self.err("text persistent ids (PERSID) are not used by torch.save; refused"),
                0x82..=0x84 => return self.err("extension-registry opcodes (EXT1/2/4) are refused"),
                0x97 | 0x98 => return self.err("out-of-band buffers (NEXT_BUFFER / READONLY_BUFFER) are refused"),
                other => return self.err(format!("unknown opcode 0x{other:02x}")),
            }
        }
    }
}

fn pairs_of(items: Vec<Value>) -> Option<Vec<(Value, Value)>> {
    if !items.len().is_multiple_of(2) {
        return None;
    }
    let mut out = Vec::with_capacity(items.len() / 2);
    let mut it = items.into_iter();
    while let (Some(k), Some(v)) = (it.next(), it.next()) {
        out.push((k, v));
    }
    Some(out)
}

fn is_known(module: &str, name: &str) -> bool {
    matches!(
        (module, name),
        ("torch._utils", "_rebuild_tensor_v2" | "_rebuild_tensor" | "_rebuild_parameter" | "_rebuild_parameter_with_state")
            | ("collections", "OrderedDict")
    ) || (module == "torch" && DType::from_storage_class(name).is_some())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn proto2(body: &[u8]) -> Vec<u8> {
        let mut v = vec![0x80, 2];
        v.extend_from_slice(body);
        v.push(b'.');
        v
    }

    #[test]
    fn os_system_reduce_is_opaque_and_reported() {
        let mut body = b"cos\nsystem\n".to_vec();
        body.extend_from_slice(&[0x8c, 4]);
        body.extend_from_slice(b"true");
        body.extend_from_slice(&[0x85, b'R']);
        let u = unpickle(&proto2(&body)).unwrap();
        assert!(matches!(u.root, Value::Opaque(_)), "{:?}", u.root);
        assert_eq!(u.ignored_globals, vec!["os.system".to_owned()]);
    }

    #[test]
    fn truncated_and_bad_streams_are_errors() {
        assert!(unpickle(&[0x80, 2, 0x8c, 200, b'a']).unwrap_err().reason.contains("truncated"));
        assert!(unpickle(&[0x80, 2]).unwrap_err().reason.contains("truncated"));
        assert!(unpickle(&[0x80, 2, b'.']).unwrap_err().reason.contains("underflow"));
        assert!(unpickle(&[0x80, 2, 0x82, 1, b'.']).unwrap_err().reason.contains("EXT"));
        assert!(unpickle(&[0x80, 2, b'h', 3, b'.']).unwrap_err().reason.contains("memo"));
        // A huge BINBYTES8 length is refused before allocation.
        let mut v = vec![0x80, 4, 0x8e];
        v.extend_from_slice(&u64::MAX.to_le_bytes());
        assert!(unpickle(&v).unwrap_err().reason.contains("exceeds"));
    }

    #[test]
    fn memoised_dict_sees_later_items() {
        // {} PUT0 MARK 'a' 1 SETITEMS POP GET0 STOP -> {'a': 1}
        let body = [b'}', b'q', 0, b'(', 0x8c, 1, b'a', b'K', 1, b'u', b'0', b'h', 0];
        let u = unpickle(&proto2(&body)).unwrap();
        assert!(matches!(u.get(&u.root, "a"), Some(Value::Int(1))));
    }
}
