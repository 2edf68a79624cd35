//! The running standings table, as text and as JSON.

use std::collections::BTreeMap;

use serde::Serialize;
use shakmaty::Color;

use crate::game_rules::Outcome;

/// One player's line.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Standing {
    /// Place (players on equal points share it).
    pub rank: usize,
    /// Player name.
    pub name: String,
    /// Points: 1 per win, 1/2 per draw.
    pub points: f64,
    /// Games finished.
    pub games: u32,
    /// Wins.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Losses.
    pub losses: u32,
}

/// The standings document written to `standings.json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Standings {
    /// Event name.
    pub event: String,
    /// Games with a result.
    pub games_played: u32,
    /// Games scheduled.
    pub games_total: u32,
    /// Lines, best first.
    pub players: Vec<Standing>,
    /// Writes that failed (the event's files may lack games counted here).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unsaved: Vec<String>,
}

/// Accumulates results.
#[derive(Debug, Clone, Default)]
pub struct Table {
    rows: BTreeMap<String, Standing>,
    played: u32,
}

impl Table {
    /// A table listing `players` with no games yet.
    pub fn new<'a>(players: impl IntoIterator<Item = &'a str>) -> Table {
        let mut t = Table::default();
        for p in players {
            t.row(p);
        }
        t
    }

    fn row(&mut self, name: &str) -> &mut Standing {
        self.rows
            .entry(name.to_owned())
            .or_insert_with(|| Standing {
                name: name.to_owned(),
                ..Standing::default()
            })
    }

    /// Records a finished game (unfinished outcomes are ignored).
    pub fn add(&mut self, white: &str, black: &str, outcome: Outcome) {
        if outcome == Outcome::Unfinished {
            return;
        }
        self.played += 1;
        for (name, color) in [(white, Color::White), (black, Color::Black)] {
            let row = self.row(name);
            row.games += 1;
            match outcome.half_points(color) {
                2 => row.wins += 1,
                1 => row.draws += 1,
                _ => row.losses += 1,
            }
            row.points = f64::from(row.wins) + f64::from(row.draws) / 2.0;
        }
    }

    /// The sorted standings.
    pub fn standings(&self, event: &str, games_total: u32) -> Standings {
        let mut players: Vec<Standing> = self.rows.values().cloned().collect();
        players.sort_by(|a, b| {
            b.points
                .total_cmp(&a.points)
                .then(b.wins.cmp(&a.wins))
                .then(a.name.cmp(&b.name))
        });
        for i in 0..players.len() {
            players[i].rank = if i > 0 && players[i].points == players[i - 1].points {
                players[i - 1].rank
            } else {
                i + 1
            };
        }
        Standings {
            event: event.to_owned(),
            games_played: self.played,
            games_total,
            players,
            unsaved: Vec::new(),
        }
    }
}

impl Standings {
    /// A fixed-width text table.
    pub fn to_text(&self) -> String {
        let width = self
            .players
            .iter()
            .map(|p| p.name.len())
            .max()
            .unwrap_or(4)
            .max(6);
        let mut out = format!(
            "{} — {} of {} games played\n{:>4}  {:<width$}  {:>6}  {:>5}  {:>4}  {:>4}  {:>4}\n",
            self.event,
            self.games_played,
            self.games_total,
            "rank",
            "player",
            "points",
            "games",
            "won",
            "drawn",
            "lost"
        );
        for p in &self.players {
            out.push_str(&format!(
                "{:>4}  {:<width$}  {:>6.1}  {:>5}  {:>4}  {:>4}  {:>4}\n",
                p.rank, p.name, p.points, p.games, p.wins, p.draws, p.losses
            ));
        }
        for e in &self.unsaved {
            out.push_str(&format!("NOT SAVED: {e}\n"));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_and_json() {
        let mut t = Table::new(["a", "b", "c"]);
        t.add("a", "b", Outcome::Win(Color::White));
        t.add("b", "c", Outcome::Draw);
        t.add("c", "a", Outcome::Unfinished);
        let s = t.standings("Cup", 3);
        assert_eq!(s.players[0].name, "a");
        assert_eq!(s.players[0].points, 1.0);
        assert_eq!(
            (s.players[1].rank, s.players[2].rank),
            (2, 2),
            "equal points share a place"
        );
        assert_eq!(s.players[1].name, "b");
        assert_eq!(s.games_played, 2);
        let json = serde_json::to_string(&s).unwrap();
        assert!(json.contains("\"games_total\":3"), "{json}");
        assert!(s.to_text().contains("2 of 3 games"));
    }
}
