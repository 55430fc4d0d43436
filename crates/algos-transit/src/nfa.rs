//! Automata over arc labels: which mode sequences a traveller profile may use (spec §1).

use super::error::TdError;
use super::graph::{MAX_LABELS, label};

/// A nondeterministic finite automaton over arc labels, with at most 64 states (bitsets in `u64`).
///
/// A journey is allowed when the word of its arc labels is accepted: it starts in any state of
/// `start`, each arc with label `l` moves from state `q` to any state of `δ(q, l)`, and it must end in a
/// state of `accept`.
///
/// ```
/// use urbanflow::transit::{label, Nfa};
/// // "walk* (bus walk*)*": walk and bus freely, never drive.
/// let no_car = Nfa::any_of(&[label::WALK, label::BUS]);
/// assert!(no_car.accepts(&[label::WALK, label::BUS, label::WALK]));
/// assert!(!no_car.accepts(&[label::WALK, label::CAR]));
/// // Park and ride: drive first, then only transit and walking.
/// let mut pr = Nfa::new(2).unwrap();
/// pr.set_start(0).set_accept(0).set_accept(1);
/// pr.add(0, label::CAR, 0).add(0, label::BUS, 1).add(1, label::BUS, 1).add(1, label::WALK, 1);
/// assert!(pr.accepts(&[label::CAR, label::BUS, label::WALK]));
/// assert!(!pr.accepts(&[label::BUS, label::CAR]));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nfa {
    n_states: u32,
    start: u64,
    accept: u64,
    // δ(q, l) at q * MAX_LABELS + l.
    delta: Vec<u64>,
}

impl Nfa {
    /// An automaton with `n_states` states (1..=64), no transitions, no start or accepting state.
    pub fn new(n_states: u32) -> Result<Self, TdError> {
        if !(1..=64).contains(&n_states) {
            return Err(TdError::TooManyStates { states: n_states });
        }
        Ok(Self { n_states, start: 0, accept: 0, delta: vec![0; (n_states * MAX_LABELS) as usize] })
    }

    /// One state, start and accepting, that reads every label of `labels`: a plain label filter
    /// (the seed's per-profile semantics).
    pub fn any_of(labels: &[u8]) -> Self {
        let mut a = Self::new(1).expect("one state");
        a.set_start(0).set_accept(0);
        for &l in labels {
            a.add(0, l, 0);
        }
        a
    }

    /// Makes `q` a start state.
    pub fn set_start(&mut self, q: u32) -> &mut Self {
        assert!(q < self.n_states, "state {q} out of range");
        self.start |= 1 << q;
        self
    }

    /// Makes `q` an accepting state.
    pub fn set_accept(&mut self, q: u32) -> &mut Self {
        assert!(q < self.n_states, "state {q} out of range");
        self.accept |= 1 << q;
        self
    }

    /// Adds the transition `q --l--> to`. Panics on a state or label out of range (automata are built
    /// by code; see [`Self::try_add`] for data).
    pub fn add(&mut self, q: u32, l: u8, to: u32) -> &mut Self {
        self.try_add(q, l, to).expect("transition out of range")
    }

    /// Adds the transition `q --l--> to`, or says which part is out of range.
    pub fn try_add(&mut self, q: u32, l: u8, to: u32) -> Result<&mut Self, TdError> {
        if q >= self.n_states || to >= self.n_states {
            return Err(TdError::InvalidParameter(format!(
                "transition {q} → {to} names a state outside 0..{}",
                self.n_states
            )));
        }
        if l as u32 >= MAX_LABELS {
            return Err(TdError::LabelOutOfRange { label: l as u32, max: MAX_LABELS });
        }
        self.delta[(q * MAX_LABELS + l as u32) as usize] |= 1 << to;
        Ok(self)
    }

    /// Number of states.
    pub fn num_states(&self) -> u32 {
        self.n_states
    }

    /// Start states (bitset).
    pub fn start(&self) -> u64 {
        self.start
    }

    /// Accepting states (bitset).
    pub fn accept(&self) -> u64 {
        self.accept
    }

    /// `δ(q, l)` as a bitset.
    #[inline]
    pub fn next(&self, q: u32, l: u8) -> u64 {
        self.delta[(q * MAX_LABELS + l as u32) as usize]
    }

    /// The transition table, `δ(q, l)` at `q * MAX_LABELS + l` (the GPU's layout).
    pub fn table(&self) -> &[u64] {
        &self.delta
    }

    /// Whether the automaton accepts the label word.
    pub fn accepts(&self, word: &[u8]) -> bool {
        let mut set = self.start;
        for &l in word {
            let mut next = 0;
            for q in bits(set) {
                next |= self.next(q, l);
            }
            set = next;
        }
        set & self.accept != 0
    }

    /// Labels some transition reads: what a profile may use at all. The seed's implementations
    /// (spec §4) applied exactly this filter and never tracked the state.
    pub fn label_mask(&self) -> u32 {
        let mut mask = 0;
        for q in 0..self.n_states {
            for l in 0..MAX_LABELS {
                if self.next(q, l as u8) != 0 {
                    mask |= 1 << l;
                }
            }
        }
        mask
    }

    /// The one-state filter automaton of [`Self::label_mask`].
    pub fn as_filter(&self) -> Self {
        let labels: Vec<u8> = (0..MAX_LABELS as u8).filter(|&l| self.label_mask() & (1 << l) != 0).collect();
        Self::any_of(&labels)
    }

    /// Walking only.
    pub fn walk() -> Self {
        Self::any_of(&[label::WALK])
    }

    /// Walk to the car, drive, walk from where it is parked: `walk* car* walk*`. States: 0 walking to
    /// the car (start), 1 driving, 2 walking from it (all accepting).
    pub fn car() -> Self {
        let mut a = Self::new(3).expect("three states");
        a.set_start(0).set_accept(0).set_accept(1).set_accept(2);
        a.add(0, label::WALK, 0).add(0, label::CAR, 1);
        a.add(1, label::CAR, 1).add(1, label::WALK, 2);
        a.add(2, label::WALK, 2);
        a
    }

    /// Walking and public transport, where a traveller who leaves a station must walk before entering
    /// one again: the in-station change time (the `TRANSFER` arc between a station's arrival and
    /// departure platforms) cannot be skipped by stepping out and back in.
    ///
    /// States: 0 street (start, accepting), 1 inside the network, 2 just left a station (accepting).
    pub fn walk_transit() -> Self {
        let mut a = Self::new(3).expect("three states");
        a.set_start(0).set_accept(0).set_accept(2);
        a.add(0, label::WALK, 0).add(0, label::ENTER, 1);
        a.add(1, label::TRANSFER, 1).add(1, label::EXIT, 2);
        for l in label::TRANSIT {
            a.add(1, l, 1);
        }
        a.add(2, label::WALK, 0);
        a
    }

    /// Bike and ride: cycle (or walk) to a station, then public transport and walking only — the bike
    /// stays at the first station. States 0–2 as [`Self::walk_transit`], plus 3 "still on the bike"
    /// (start, accepting).
    pub fn bike_transit() -> Self {
        let mut a = Self::new(4).expect("four states");
        a.set_start(3).set_accept(0).set_accept(2).set_accept(3);
        a.add(0, label::WALK, 0).add(0, label::ENTER, 1);
        a.add(1, label::TRANSFER, 1).add(1, label::EXIT, 2);
        for l in label::TRANSIT {
            a.add(1, l, 1);
        }
        a.add(2, label::WALK, 0);
        a.add(3, label::BIKE, 3).add(3, label::WALK, 3).add(3, label::ENTER, 1);
        a
    }

    /// The named profiles of [`Self::walk`], [`Self::walk_transit`], [`Self::bike_transit`] and
    /// [`Self::car`]: `walk`, `walk+transit`, `bike+transit`, `car`.
    pub fn profile(name: &str) -> Result<Self, TdError> {
        Ok(match name {
            "walk" => Self::walk(),
            "walk+transit" | "transit" => Self::walk_transit(),
            "bike+transit" => Self::bike_transit(),
            "car" => Self::car(),
            other => {
                return Err(TdError::InvalidParameter(format!(
                    "unknown profile `{other}` (expected walk, walk+transit, bike+transit or car)"
                )));
            }
        })
    }
}

/// The set bits of `set`, lowest first.
#[inline]
pub(crate) fn bits(mut set: u64) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        (set != 0).then(|| {
            let q = set.trailing_zeros();
            set &= set - 1;
            q
        })
    })
}
