//! The property table: every property of FF\[1\] (Kierulf's thesis), FF\[3\]
//! and FF\[4\], with its value type, property type and file formats.

/// What kind of value a property holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueType {
    /// A move (point or pass).
    Move,
    /// A single point (LOA `SE`).
    Point,
    /// Number.
    Number,
    /// Real.
    Real,
    /// Double (`1` or `2`; FF\[1\] Triple).
    Double,
    /// Color (`B` or `W`).
    Color,
    /// None: the empty value only.
    None,
    /// Formatted Text (hard line breaks kept).
    Text,
    /// SimpleText (line breaks become spaces).
    SimpleText,
    /// List of points (compressed rectangles allowed).
    PointList,
    /// List of points or the empty value.
    EPointList,
    /// List of composed `point:point` (`AR`, `LN`).
    PointPairList,
    /// List of composed `point:simpletext` (`LB`).
    LabelList,
    /// None or composed `number:simpletext` (`FG`).
    Figure,
    /// Composed `simpletext:simpletext` (`AP`).
    Application,
    /// Number or composed `number:number` (`SZ`).
    Size,
}

impl ValueType {
    /// Whether more than one value is allowed.
    pub fn is_list(self) -> bool {
        matches!(
            self,
            ValueType::PointList
                | ValueType::EPointList
                | ValueType::PointPairList
                | ValueType::LabelList
        )
    }
}

/// The property type of FF\[4\] (section 2.2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PropKind {
    /// Move properties.
    Move,
    /// Setup properties.
    Setup,
    /// Root properties.
    Root,
    /// Game-info properties.
    GameInfo,
    /// No type.
    Other,
}

macro_rules! props {
    ($($id:ident $ty:ident $kind:ident $ff:literal $desc:literal;)*) => {
        /// A property identifier known to FF\[1\]..FF\[4\].
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        #[allow(clippy::upper_case_acronyms)]
        pub enum Prop {
            $(#[doc = $desc] $id,)*
            /// Any other identifier (kept verbatim).
            Unknown,
        }

        const TABLE: &[(&str, ValueType, PropKind, &str, &str)] = &[
            $((stringify!($id), ValueType::$ty, PropKind::$kind, $ff, $desc),)*
        ];

        /// Every known property.
        pub const ALL_PROPS: &[Prop] = &[$(Prop::$id,)*];
    };
}

props! {
    AB EPointList Setup "1234" "Add Black";
    AE EPointList Setup "1234" "Add Empty";
    AN SimpleText GameInfo "--34" "Annotation";
    AP Application Root "---4" "Application";
    AR PointPairList Other "---4" "Arrow";
    AS SimpleText Other "---4" "Who adds stones (LOA)";
    AW EPointList Setup "1234" "Add White";
    B Move Move "1234" "Black move";
    BL Real Move "1234" "Black time left";
    BM Double Move "1234" "Bad move";
    BR SimpleText GameInfo "1234" "Black rank";
    BS Number GameInfo "123-" "Black species";
    BT SimpleText GameInfo "--34" "Black team";
    C Text Other "1234" "Comment";
    CA SimpleText Root "---4" "Charset";
    CH Double Other "123-" "Check mark";
    CP SimpleText GameInfo "--34" "Copyright";
    CR PointList Other "--34" "Circle";
    DD EPointList Other "---4" "Dim points";
    DM Double Other "--34" "Even position";
    DO None Move "--34" "Doubtful move";
    DT SimpleText GameInfo "1234" "Date";
    EL Number Other "12--" "Evaluation of computer move";
    EV SimpleText GameInfo "1234" "Event";
    EX Move Other "12--" "Expected move";
    FF Number Root "-234" "File format";
    FG Figure Other "1234" "Figure";
    GB Double Other "1234" "Good for Black";
    GC Text GameInfo "1234" "Game comment";
    GM Number Root "1234" "Game";
    GN SimpleText GameInfo "1234" "Game name";
    GW Double Other "1234" "Good for White";
    HA Number GameInfo "1234" "Handicap";
    HO Double Other "--34" "Hotspot";
    ID SimpleText GameInfo "--3-" "Game identifier";
    IP SimpleText GameInfo "---4" "Initial position (LOA)";
    IT None Move "--34" "Interesting move";
    IY SimpleText GameInfo "---4" "Invert Y-axis (LOA)";
    KM Real GameInfo "1234" "Komi";
    KO None Move "--34" "Ko (execute even if illegal)";
    L PointList Other "12--" "Letters";
    LB LabelList Other "--34" "Label";
    LN PointPairList Other "--34" "Line";
    LT None Other "--3-" "Lose on time";
    M PointList Other "12--" "Marked points";
    MA PointList Other "--34" "Mark with X";
    MN Number Move "--34" "Set move number";
    N SimpleText Other "1234" "Node name";
    OB Number Move "--34" "Overtime stones Black";
    OM Number Other "--3-" "Moves per overtime";
    ON SimpleText GameInfo "--34" "Opening";
    OP Real Other "--3-" "Overtime length";
    OT SimpleText GameInfo "---4" "Overtime";
    OV Real Other "--3-" "Operator overhead";
    OW Number Move "--34" "Overtime stones White";
    PB SimpleText GameInfo "1234" "Player Black";
    PC SimpleText GameInfo "1234" "Place";
    PL Color Setup "1234" "Player to play";
    PM Number Other "---4" "Print move mode";
    PW SimpleText GameInfo "1234" "Player White";
    RE SimpleText GameInfo "1234" "Result";
    RG PointList Other "123-" "Region";
    RO SimpleText GameInfo "1234" "Round";
    RU SimpleText GameInfo "--34" "Rules";
    SC PointList Other "123-" "Secure stones";
    SE PointList Other "--34" "Self-test moves (FF3) / markup (LOA)";
    SI Double Other "--3-" "Sigma";
    SL PointList Other "1234" "Selected";
    SO SimpleText GameInfo "1234" "Source";
    SQ PointList Other "---4" "Square";
    ST Number Root "---4" "Style";
    SU SimpleText GameInfo "---4" "Setup type (LOA)";
    SZ Size Root "1234" "Board size";
    TB EPointList Other "1234" "Territory Black";
    TC Number Other "--3-" "Territory count";
    TE Double Move "1234" "Tesuji";
    TM Real GameInfo "1234" "Time limit";
    TR PointList Other "--34" "Triangle";
    TW EPointList Other "1234" "Territory White";
    UC Double Other "--34" "Unclear position";
    US SimpleText GameInfo "1234" "User";
    V Real Other "1234" "Node value";
    VW EPointList Other "1234" "View";
    W Move Move "1234" "White move";
    WL Real Move "1234" "White time left";
    WR SimpleText GameInfo "1234" "White rank";
    WS Number GameInfo "123-" "White species";
    WT SimpleText GameInfo "--34" "White team";
}

/// Lookup table from a one- or two-letter identifier to its property.
static LOOKUP: std::sync::LazyLock<[u8; 27 * 27]> = std::sync::LazyLock::new(|| {
    let mut t = [u8::MAX; 27 * 27];
    for (i, (name, ..)) in TABLE.iter().enumerate() {
        let b = name.as_bytes();
        let k = key(b[0], b.get(1).copied());
        t[k] = i as u8;
    }
    t
});

fn key(a: u8, b: Option<u8>) -> usize {
    (a - b'A') as usize * 27 + b.map_or(0, |b| (b - b'A') as usize + 1)
}

impl Prop {
    /// The property for an uppercase identifier.
    pub fn from_ident(id: &[u8]) -> Prop {
        let ok = |c: &u8| c.is_ascii_uppercase();
        let k = match id {
            [a] if ok(a) => key(*a, None),
            [a, b] if ok(a) && ok(b) => key(*a, Some(*b)),
            _ => return Prop::Unknown,
        };
        let i = LOOKUP[k];
        if i == u8::MAX {
            Prop::Unknown
        } else {
            ALL_PROPS[i as usize]
        }
    }

    fn entry(
        self,
    ) -> &'static (
        &'static str,
        ValueType,
        PropKind,
        &'static str,
        &'static str,
    ) {
        &TABLE[self as usize]
    }

    /// The identifier (`""` for [`Prop::Unknown`]).
    pub fn name(self) -> &'static str {
        if self == Prop::Unknown {
            ""
        } else {
            self.entry().0
        }
    }

    /// The value type (FF\[4\] where formats differ).
    pub fn value_type(self) -> ValueType {
        if self == Prop::Unknown {
            ValueType::SimpleText
        } else {
            self.entry().1
        }
    }

    /// The property type.
    pub fn kind(self) -> PropKind {
        if self == Prop::Unknown {
            PropKind::Other
        } else {
            self.entry().2
        }
    }

    /// A one-line description.
    pub fn description(self) -> &'static str {
        if self == Prop::Unknown {
            "unknown property"
        } else {
            self.entry().4
        }
    }

    /// Whether the property is defined in file format `ff` (1..4).
    pub fn in_ff(self, ff: u32) -> bool {
        if self == Prop::Unknown || !(1..=4).contains(&ff) {
            return false;
        }
        let m = self.entry().3.as_bytes();
        // FF[2] was never published; treat it like FF[1].
        let i = if ff == 2 { 0 } else { ff as usize - 1 };
        m[i] != b'-'
    }

    /// Whether the property is inherited by following nodes.
    pub fn is_inherit(self) -> bool {
        matches!(self, Prop::DD | Prop::VW | Prop::PM)
    }
}
