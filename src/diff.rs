//! Unified line diffs, shown by `memdir doctor --fix` before it writes.
//!
//! The output is what GNU `diff -u` prints (after its `---`/`+++` lines), because the steps are
//! GNU diff's own: identical leading and trailing lines are set aside but for a 3-line horizon;
//! lines that match nothing in the other text are discarded before the search; Myers's O(ND)
//! middle-snake search splits the rest (with GNU's cut-off for very expensive scripts); runs of
//! changes are then slid to their canonical place; hunks carry 3 lines of context and merge
//! when at most 6 unchanged lines separate them.
//!
//! Lines are split after each `\n`; a final line without one is its own line, different from
//! the same text with a newline, and is followed by `\ No newline at end of file` wherever it is
//! printed. If what is left to compare after trimming identical ends and discards still exceeds
//! 4,000,000 line pairs, that middle part is reported as removed and re-added in full.

use std::collections::HashMap;

/// Lines of context around each change.
const CONTEXT: usize = 3;
/// Above this many (old line × new line) pairs the search is not attempted.
const MAX_PAIRS: usize = 4_000_000;

/// A unified diff (`--- a/{path}`, `+++ b/{path}`, `@@` hunks with 3 lines of context) of
/// `old` → `new`; empty when they are equal.
pub fn unified_diff(path: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    let script = edit_script(old, new, &a, &b);

    let mut out = String::new();
    if old.is_empty() {
        out.push_str("--- /dev/null\n");
    } else {
        out.push_str(&format!("--- a/{path}\n"));
    }
    if new.is_empty() {
        out.push_str("+++ /dev/null\n");
    } else {
        out.push_str(&format!("+++ b/{path}\n"));
    }
    render(&mut out, &a, &b, &script);
    out
}

/// For each line of `old`, the line of `new` it is kept as (0-based), or `None` when the edit
/// script of [`unified_diff`] deletes it: the same alignment, for a three-way merge
/// (`merge_index.rs`). Both are lists of lines without their newlines.
pub(crate) fn kept_lines(old: &[&str], new: &[&str]) -> Vec<Option<usize>> {
    let join = |lines: &[&str]| lines.iter().map(|l| format!("{l}\n")).collect::<String>();
    let (old_text, new_text) = (join(old), join(new));
    let a: Vec<&str> = old_text.split_inclusive('\n').collect();
    let b: Vec<&str> = new_text.split_inclusive('\n').collect();
    let mut kept = vec![None; a.len()];
    let (mut i0, mut i1) = (0, 0);
    let mut keep_until = |end: usize, i0: &mut usize, i1: &mut usize| {
        while *i0 < end {
            if let Some(slot) = kept.get_mut(*i0) {
                *slot = Some(*i1);
            }
            *i0 += 1;
            *i1 += 1;
        }
    };
    for change in edit_script(&old_text, &new_text, &a, &b) {
        keep_until(change.line0, &mut i0, &mut i1);
        i0 += change.deleted;
        i1 += change.inserted;
    }
    keep_until(a.len(), &mut i0, &mut i1);
    kept
}

/// One change of an edit script: `deleted` lines of the old text from `line0` are replaced by
/// `inserted` lines of the new text from `line1` (0-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Change {
    line0: usize,
    line1: usize,
    deleted: usize,
    inserted: usize,
}

// ---------------------------------------------------------------------------------------------
// The edit script

fn edit_script<'a>(old: &str, new: &str, a: &[&'a str], b: &[&'a str]) -> Vec<Change> {
    let x = Buffer::new(old);
    let y = Buffer::new(new);
    let (prefix, end0, end1) = identical_ends(&x, &y);
    let lines0 = a.get(prefix..end0).unwrap_or_default();
    let lines1 = b.get(prefix..end1).unwrap_or_default();

    // Equivalence classes: equal lines get the same number.
    let mut classes: HashMap<&str, usize> = HashMap::new();
    let mut class_of = |line: &&'a str| {
        let next = classes.len();
        *classes.entry(*line).or_insert(next)
    };
    let eq0: Vec<usize> = lines0.iter().map(&mut class_of).collect();
    let eq1: Vec<usize> = lines1.iter().map(&mut class_of).collect();
    let class_count = classes.len();

    let mut changed0 = Flags::new(eq0.len());
    let mut changed1 = Flags::new(eq1.len());
    let [keep0, keep1] = discard_confusing_lines([&eq0, &eq1], class_count);
    let (xv, real0) = undiscarded(&eq0, &keep0, &mut changed0);
    let (yv, real1) = undiscarded(&eq1, &keep1, &mut changed1);

    if xv.len().saturating_mul(yv.len()) > MAX_PAIRS {
        for &r in &real0 {
            changed0.set_index(r, true);
        }
        for &r in &real1 {
            changed1.set_index(r, true);
        }
    } else {
        let mut seq = Search::new(&xv, &yv);
        seq.compare(&mut |side, i| {
            let (real, changed) = if side == 0 {
                (&real0, &mut changed0)
            } else {
                (&real1, &mut changed1)
            };
            if let Some(&r) = real.get(i) {
                changed.set_index(r, true);
            }
        });
    }

    shift_boundaries(&mut changed0, &changed1, &eq0);
    shift_boundaries(&mut changed1, &changed0, &eq1);
    build_script(&changed0, &changed1, prefix)
}

/// A text as GNU diff holds it in memory: a missing final newline is supplied, and remembered.
struct Buffer<'a> {
    bytes: &'a [u8],
    missing_newline: bool,
}

impl<'a> Buffer<'a> {
    fn new(text: &'a str) -> Self {
        let bytes = text.as_bytes();
        Buffer {
            bytes,
            missing_newline: bytes.last().is_some_and(|&c| c != b'\n'),
        }
    }

    fn len(&self) -> usize {
        self.bytes.len() + usize::from(self.missing_newline)
    }

    fn at(&self, i: usize) -> u8 {
        self.bytes.get(i).copied().unwrap_or(b'\n')
    }

    /// How many lines end before byte `offset`.
    fn lines_before(&self, offset: usize) -> usize {
        let real = offset.min(self.bytes.len());
        let newlines = self
            .bytes
            .get(..real)
            .map_or(0, |s| s.iter().filter(|&&c| c == b'\n').count());
        newlines + usize::from(offset > self.bytes.len())
    }
}

/// GNU diff's `find_identical_ends`: the identical prefix and suffix, each less a 3-line
/// horizon (and the suffix one more line when it does not start a line in both texts), are left
/// out of the comparison. Returns the number of prefix lines and where the suffix begins in
/// each text, in lines.
fn identical_ends(x: &Buffer, y: &Buffer) -> (usize, usize, usize) {
    let (n0, n1) = (x.len(), y.len());
    let mut p = 0;
    while p < n0 && p < n1 && x.at(p) == y.at(p) {
        p += 1;
    }
    // a supplied newline is not part of the prefix
    let past0 = n0 - usize::from(x.missing_newline) < p;
    let past1 = n1 - usize::from(y.missing_newline) < p;
    if past0 != past1 {
        p = p.saturating_sub(1);
    }
    let mut horizon = CONTEXT;
    while p > 0 {
        if x.at(p - 1) != b'\n' {
            p -= 1;
        } else if horizon > 0 {
            horizon -= 1;
            p -= 1;
        } else {
            break;
        }
    }
    let prefix_end = p;

    let (mut s0, mut s1) = (n0, n1);
    if x.missing_newline == y.missing_newline {
        let mut beg0 = prefix_end + n0.saturating_sub(n1);
        while s0 != beg0 {
            s0 -= 1;
            s1 -= 1;
            if x.at(s0) != y.at(s1) {
                s0 += 1;
                s1 += 1;
                beg0 = s0;
                break;
            }
        }
        let at_line_start =
            (s0 == 0 || x.at(s0 - 1) == b'\n') && (s1 == 0 || y.at(s1 - 1) == b'\n');
        let mut skip = CONTEXT + usize::from(!at_line_start);
        while skip > 0 && s0 != n0 {
            skip -= 1;
            loop {
                let c = x.at(s0);
                s0 += 1;
                if c == b'\n' || s0 >= n0 {
                    break;
                }
            }
        }
        s1 += s0 - beg0;
    }
    (
        x.lines_before(prefix_end),
        x.lines_before(s0),
        y.lines_before(s1),
    )
}

/// GNU diff's `discard_confusing_lines`: a line with no match in the other text is set aside
/// (it is certainly changed); a line with very many matches is set aside too when it sits in a
/// run of such lines. Returns, per text, whether each line takes part in the search.
fn discard_confusing_lines(eq: [&[usize]; 2], classes: usize) -> [Vec<bool>; 2] {
    let mut counts = [vec![0usize; classes], vec![0usize; classes]];
    for (f, e) in eq.iter().enumerate() {
        if let Some(count) = counts.get_mut(f) {
            for &c in *e {
                if let Some(n) = count.get_mut(c) {
                    *n += 1;
                }
            }
        }
    }
    let [count0, count1] = &counts;
    let mut keep = [Vec::new(), Vec::new()];
    for (f, (e, other)) in [(eq[0], count1), (eq[1], count0)].into_iter().enumerate() {
        let discards = discards_for(e, other);
        if let Some(k) = keep.get_mut(f) {
            *k = discards.iter().map(|&d| d == KEEP).collect();
        }
    }
    keep
}

const KEEP: u8 = 0;
const DISCARD: u8 = 1;
const PROVISIONAL: u8 = 2;

fn discards_for(eq: &[usize], other_counts: &[usize]) -> Vec<u8> {
    let end = eq.len();
    let many = 5usize << if end < 64 { 0 } else { (end.ilog2() >> 1) - 3 };
    let mut d: Vec<u8> = eq
        .iter()
        .map(|&c| match other_counts.get(c).copied().unwrap_or(0) {
            0 => DISCARD,
            n if n > many => PROVISIONAL,
            _ => KEEP,
        })
        .collect();
    let at = |d: &[u8], i: usize| d.get(i).copied().unwrap_or(KEEP);
    let put = |d: &mut [u8], i: usize, v: u8| {
        if let Some(x) = d.get_mut(i) {
            *x = v;
        }
    };

    // Keep provisional discards only inside a run of discards that starts and ends with
    // definite ones.
    let mut i = 0;
    while i < end {
        match at(&d, i) {
            PROVISIONAL => put(&mut d, i, KEEP),
            KEEP => {}
            _ => {
                let mut provisional = 0usize;
                let mut j = i;
                while j < end {
                    match at(&d, j) {
                        KEEP => break,
                        PROVISIONAL => provisional += 1,
                        _ => {}
                    }
                    j += 1;
                }
                while j > i && at(&d, j - 1) == PROVISIONAL {
                    j -= 1;
                    put(&mut d, j, KEEP);
                    provisional -= 1;
                }
                let length = j - i;
                if length >> 2 < provisional {
                    while j > i {
                        j -= 1;
                        if at(&d, j) == PROVISIONAL {
                            put(&mut d, j, KEEP);
                        }
                    }
                } else {
                    let minimum: usize = if length < 4 {
                        2
                    } else {
                        (1usize << ((length.ilog2() >> 1) - 1)) + 1
                    };
                    // cancel any subrun of `minimum` or more provisionals
                    let mut consec = 0usize;
                    let mut k: isize = 0;
                    let len = length as isize;
                    while k < len {
                        let idx = i + k as usize;
                        if at(&d, idx) != PROVISIONAL {
                            consec = 0;
                        } else {
                            consec += 1;
                            if consec == minimum {
                                k -= consec as isize;
                            } else if consec > minimum {
                                put(&mut d, idx, KEEP);
                            }
                        }
                        k += 1;
                    }
                    // from the start until 3 definite discards in a row (or 8 lines in), no
                    // provisionals; then the same from the end
                    cancel_edge_provisionals(&mut d, (0..length).map(|k| i + k));
                    i += length - 1;
                    cancel_edge_provisionals(&mut d, (0..length).map(|k| i - k));
                }
            }
        }
        i += 1;
    }
    d
}

fn cancel_edge_provisionals(d: &mut [u8], order: impl Iterator<Item = usize>) {
    let mut consec = 0;
    for (k, idx) in order.enumerate() {
        let Some(v) = d.get_mut(idx) else { break };
        if k >= 8 && *v == DISCARD {
            break;
        }
        match *v {
            PROVISIONAL => {
                consec = 0;
                *v = KEEP;
            }
            KEEP => consec = 0,
            _ => consec += 1,
        }
        if consec == 3 {
            break;
        }
    }
}

/// The lines that take part in the search and their real indexes; the others are marked
/// changed.
fn undiscarded(eq: &[usize], keep: &[bool], changed: &mut Flags) -> (Vec<usize>, Vec<usize>) {
    let mut values = Vec::new();
    let mut real = Vec::new();
    for (i, (&c, &k)) in eq.iter().zip(keep).enumerate() {
        if k {
            values.push(c);
            real.push(i);
        } else {
            changed.set_index(i, true);
        }
    }
    (values, real)
}

/// One flag per line, with a `false` sentinel on each side (index -1 and `len`).
struct Flags(Vec<bool>);

impl Flags {
    fn new(len: usize) -> Self {
        Flags(vec![false; len + 2])
    }

    fn get(&self, i: isize) -> bool {
        usize::try_from(i + 1)
            .ok()
            .and_then(|i| self.0.get(i))
            .copied()
            .unwrap_or(false)
    }

    fn set(&mut self, i: isize, v: bool) {
        if let Some(f) = usize::try_from(i + 1).ok().and_then(|i| self.0.get_mut(i)) {
            *f = v;
        }
    }

    fn set_index(&mut self, i: usize, v: bool) {
        if let Some(f) = self.0.get_mut(i + 1) {
            *f = v;
        }
    }

    fn lines(&self) -> isize {
        self.0.len() as isize - 2
    }
}

/// Myers's middle-snake search over two sequences of class numbers (gnulib's `diffseq.h`).
struct Search<'a> {
    xv: &'a [usize],
    yv: &'a [usize],
    fd: Vec<isize>,
    bd: Vec<isize>,
    /// Index of diagonal 0 in `fd` and `bd`.
    origin: isize,
    too_expensive: isize,
}

/// Where a search split a problem in two, and whether each half is known to be minimal.
struct Partition {
    xmid: isize,
    ymid: isize,
    lo_minimal: bool,
    hi_minimal: bool,
}

impl<'a> Search<'a> {
    fn new(xv: &'a [usize], yv: &'a [usize]) -> Self {
        let diags = xv.len() + yv.len() + 3;
        let too_expensive = (1isize << ((diags.ilog2() >> 1) + 1)).max(4096);
        Search {
            xv,
            yv,
            fd: vec![0; diags],
            bd: vec![0; diags],
            origin: yv.len() as isize + 1,
            too_expensive,
        }
    }

    fn same(&self, x: isize, y: isize) -> bool {
        let xv = usize::try_from(x).ok().and_then(|i| self.xv.get(i));
        let yv = usize::try_from(y).ok().and_then(|i| self.yv.get(i));
        matches!((xv, yv), (Some(a), Some(b)) if a == b)
    }

    fn slot(&self, d: isize) -> Option<usize> {
        usize::try_from(d + self.origin).ok()
    }

    fn f(&self, d: isize) -> isize {
        self.slot(d)
            .and_then(|i| self.fd.get(i))
            .copied()
            .unwrap_or(-1)
    }

    fn b(&self, d: isize) -> isize {
        self.slot(d)
            .and_then(|i| self.bd.get(i))
            .copied()
            .unwrap_or(isize::MAX)
    }

    fn set_f(&mut self, d: isize, v: isize) {
        if let Some(x) = self.slot(d).and_then(|i| self.fd.get_mut(i)) {
            *x = v;
        }
    }

    fn set_b(&mut self, d: isize, v: isize) {
        if let Some(x) = self.slot(d).and_then(|i| self.bd.get_mut(i)) {
            *x = v;
        }
    }

    /// `compareseq`: reports every deleted old line as `note(0, i)` and every inserted new line
    /// as `note(1, j)`. Subproblems go on a stack instead of the call stack.
    fn compare(&mut self, note: &mut impl FnMut(usize, usize)) {
        let mut stack = vec![(0, self.xv.len() as isize, 0, self.yv.len() as isize, false)];
        while let Some((mut xoff, mut xlim, mut yoff, mut ylim, minimal)) = stack.pop() {
            while xoff < xlim && yoff < ylim && self.same(xoff, yoff) {
                xoff += 1;
                yoff += 1;
            }
            while xoff < xlim && yoff < ylim && self.same(xlim - 1, ylim - 1) {
                xlim -= 1;
                ylim -= 1;
            }
            if xoff == xlim || yoff == ylim {
                (xoff..xlim).for_each(|x| note(0, x as usize));
                (yoff..ylim).for_each(|y| note(1, y as usize));
                continue;
            }
            let p = self.diag(xoff, xlim, yoff, ylim, minimal);
            let degenerate = (p.xmid, p.ymid) == (xoff, yoff) || (p.xmid, p.ymid) == (xlim, ylim);
            if degenerate || p.xmid < xoff || p.xmid > xlim || p.ymid < yoff || p.ymid > ylim {
                // cannot happen; but never loop: call the whole part changed
                (xoff..xlim).for_each(|x| note(0, x as usize));
                (yoff..ylim).for_each(|y| note(1, y as usize));
                continue;
            }
            stack.push((p.xmid, xlim, p.ymid, ylim, p.hi_minimal));
            stack.push((xoff, p.xmid, yoff, p.ymid, p.lo_minimal));
        }
    }

    /// `diag`: the midpoint of a shortest edit script of the part, searching from both ends.
    fn diag(
        &mut self,
        xoff: isize,
        xlim: isize,
        yoff: isize,
        ylim: isize,
        minimal: bool,
    ) -> Partition {
        let dmin = xoff - ylim;
        let dmax = xlim - yoff;
        let fmid = xoff - yoff;
        let bmid = xlim - ylim;
        let (mut fmin, mut fmax, mut bmin, mut bmax) = (fmid, fmid, bmid, bmid);
        let odd = (fmid - bmid) & 1 != 0;
        let found = |xmid, ymid| Partition {
            xmid,
            ymid,
            lo_minimal: true,
            hi_minimal: true,
        };
        self.set_f(fmid, xoff);
        self.set_b(bmid, xlim);
        let limit = (xlim - xoff) + (ylim - yoff) + 2;
        let mut c: isize = 1;
        loop {
            if fmin > dmin {
                fmin -= 1;
                self.set_f(fmin - 1, -1);
            } else {
                fmin += 1;
            }
            if fmax < dmax {
                fmax += 1;
                self.set_f(fmax + 1, -1);
            } else {
                fmax -= 1;
            }
            let mut d = fmax;
            while d >= fmin {
                let (tlo, thi) = (self.f(d - 1), self.f(d + 1));
                let x0 = if tlo < thi { thi } else { tlo + 1 };
                let (mut x, mut y) = (x0, x0 - d);
                while x < xlim && y < ylim && self.same(x, y) {
                    x += 1;
                    y += 1;
                }
                self.set_f(d, x);
                if odd && bmin <= d && d <= bmax && self.b(d) <= x {
                    return found(x, y);
                }
                d -= 2;
            }

            if bmin > dmin {
                bmin -= 1;
                self.set_b(bmin - 1, isize::MAX);
            } else {
                bmin += 1;
            }
            if bmax < dmax {
                bmax += 1;
                self.set_b(bmax + 1, isize::MAX);
            } else {
                bmax -= 1;
            }
            let mut d = bmax;
            while d >= bmin {
                let (tlo, thi) = (self.b(d - 1), self.b(d + 1));
                let x0 = if tlo < thi { tlo } else { thi - 1 };
                let (mut x, mut y) = (x0, x0 - d);
                while xoff < x && yoff < y && self.same(x - 1, y - 1) {
                    x -= 1;
                    y -= 1;
                }
                self.set_b(d, x);
                if !odd && fmin <= d && d <= fmax && x <= self.f(d) {
                    return found(x, y);
                }
                d -= 2;
            }

            if c > limit {
                // cannot happen (the searches meet by then); a valid split all the same
                return Partition {
                    xmid: xlim,
                    ymid: yoff,
                    lo_minimal: true,
                    hi_minimal: true,
                };
            }
            if !minimal && c >= self.too_expensive {
                return self.give_up(xoff, xlim, yoff, ylim, (fmin, fmax), (bmin, bmax));
            }
            c += 1;
        }
    }

    /// GNU's TOO_EXPENSIVE heuristic: report the better of the furthest-reaching forward and
    /// backward diagonals.
    fn give_up(
        &self,
        xoff: isize,
        xlim: isize,
        yoff: isize,
        ylim: isize,
        (fmin, fmax): (isize, isize),
        (bmin, bmax): (isize, isize),
    ) -> Partition {
        let (mut fxybest, mut fxbest) = (-1, 0);
        let mut d = fmax;
        while d >= fmin {
            let mut x = self.f(d).min(xlim);
            let mut y = x - d;
            if ylim < y {
                x = ylim + d;
                y = ylim;
            }
            if fxybest < x + y {
                fxybest = x + y;
                fxbest = x;
            }
            d -= 2;
        }
        let (mut bxybest, mut bxbest) = (isize::MAX, 0);
        let mut d = bmax;
        while d >= bmin {
            let mut x = self.b(d).max(xoff);
            let mut y = x - d;
            if y < yoff {
                x = yoff + d;
                y = yoff;
            }
            if x + y < bxybest {
                bxybest = x + y;
                bxbest = x;
            }
            d -= 2;
        }
        if (xlim + ylim) - bxybest < fxybest - (xoff + yoff) {
            Partition {
                xmid: fxbest,
                ymid: fxybest - fxbest,
                lo_minimal: true,
                hi_minimal: false,
            }
        } else {
            Partition {
                xmid: bxbest,
                ymid: bxybest - bxbest,
                lo_minimal: false,
                hi_minimal: true,
            }
        }
    }
}

/// GNU diff's `shift_boundaries`: slide each run of changed lines over identical neighbours so
/// that runs merge where they can, sit as late as they can, and otherwise line up with a
/// change in the other text.
fn shift_boundaries(changed: &mut Flags, other: &Flags, eq: &[usize]) {
    let class = |i: isize| usize::try_from(i).ok().and_then(|i| eq.get(i)).copied();
    let i_end = changed.lines();
    let (mut i, mut j): (isize, isize) = (0, 0);
    loop {
        while i < i_end && !changed.get(i) {
            loop {
                let was = other.get(j);
                j += 1;
                if !was {
                    break;
                }
            }
            i += 1;
        }
        if i == i_end {
            break;
        }
        let mut start = i;
        loop {
            i += 1;
            if !changed.get(i) {
                break;
            }
        }
        while other.get(j) {
            j += 1;
        }
        let mut corresponding;
        loop {
            let runlength = i - start;
            while start > 0 && class(start - 1) == class(i - 1) {
                start -= 1;
                changed.set(start, true);
                i -= 1;
                changed.set(i, false);
                while changed.get(start - 1) {
                    start -= 1;
                }
                loop {
                    j -= 1;
                    if !other.get(j) {
                        break;
                    }
                }
            }
            corresponding = if other.get(j - 1) { i } else { i_end };
            while i != i_end && class(start) == class(i) {
                changed.set(start, false);
                start += 1;
                changed.set(i, true);
                i += 1;
                while changed.get(i) {
                    i += 1;
                }
                loop {
                    j += 1;
                    if !other.get(j) {
                        break;
                    }
                    corresponding = i;
                }
            }
            if runlength == i - start {
                break;
            }
        }
        while corresponding < i {
            start -= 1;
            changed.set(start, true);
            i -= 1;
            changed.set(i, false);
            loop {
                j -= 1;
                if !other.get(j) {
                    break;
                }
            }
        }
    }
}

/// The changes in order, in whole-text line numbers (`offset` lines precede the compared part).
fn build_script(changed0: &Flags, changed1: &Flags, offset: usize) -> Vec<Change> {
    let (len0, len1) = (changed0.lines(), changed1.lines());
    let mut script = Vec::new();
    let (mut i0, mut i1): (isize, isize) = (0, 0);
    while i0 < len0 || i1 < len1 {
        if changed0.get(i0) || changed1.get(i1) {
            let (line0, line1) = (i0, i1);
            while changed0.get(i0) {
                i0 += 1;
            }
            while changed1.get(i1) {
                i1 += 1;
            }
            script.push(Change {
                line0: offset + line0 as usize,
                line1: offset + line1 as usize,
                deleted: (i0 - line0) as usize,
                inserted: (i1 - line1) as usize,
            });
        }
        i0 += 1;
        i1 += 1;
    }
    script
}

// ---------------------------------------------------------------------------------------------
// Output

fn render(out: &mut String, a: &[&str], b: &[&str], script: &[Change]) {
    let mut rest = script;
    while let Some((first, _)) = rest.split_first() {
        // a hunk runs while fewer than 2 × CONTEXT + 1 unchanged lines separate its changes
        let mut count = 1;
        while let (Some(prev), Some(next)) = (rest.get(count - 1), rest.get(count)) {
            if next.line0 - (prev.line0 + prev.deleted) > 2 * CONTEXT {
                break;
            }
            count += 1;
        }
        let Some((hunk, tail)) = rest.split_at_checked(count) else {
            break;
        };
        rest = tail;
        let Some(last) = hunk.last() else { break };

        let first0 = first.line0.saturating_sub(CONTEXT);
        let first1 = first.line1.saturating_sub(CONTEXT);
        // one past the last line shown
        let end0 = (last.line0 + last.deleted + CONTEXT).min(a.len());
        let end1 = (last.line1 + last.inserted + CONTEXT).min(b.len());
        out.push_str(&format!(
            "@@ -{} +{} @@\n",
            range(first0, end0),
            range(first1, end1)
        ));

        let (mut i, mut j) = (first0, first1);
        for change in hunk {
            while i < change.line0 {
                push_line(out, ' ', a.get(i));
                i += 1;
                j += 1;
            }
            for _ in 0..change.deleted {
                push_line(out, '-', a.get(i));
                i += 1;
            }
            for _ in 0..change.inserted {
                push_line(out, '+', b.get(j));
                j += 1;
            }
        }
        while i < end0 {
            push_line(out, ' ', a.get(i));
            i += 1;
        }
    }
}

/// `l,s` for lines `[start, end)` (0-based), as `diff -u` prints it: `l` alone when `s` is 1,
/// and the line before with `,0` when the range is empty.
fn range(start: usize, end: usize) -> String {
    match end - start {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        n => format!("{},{n}", start + 1),
    }
}

fn push_line(out: &mut String, mark: char, line: Option<&&str>) {
    let line = line.copied().unwrap_or("\n");
    out.push(mark);
    out.push_str(line);
    if !line.ends_with('\n') {
        out.push_str("\n\\ No newline at end of file\n");
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    use super::*;

    /// Applies `diff` to `old`, checking every context and removed line and every hunk's
    /// counts on the way.
    fn apply(old: &str, diff: &str) -> String {
        let a: Vec<&str> = old.split_inclusive('\n').collect();
        let mut out = String::new();
        let mut next = 0;
        let mut counts = [0usize; 2];
        let mut lines = diff.split_inclusive('\n').skip(2).peekable();
        while let Some(line) = lines.next() {
            if let Some(header) = line.strip_prefix("@@ -") {
                assert_eq!(counts, [0, 0], "short hunk before {line}");
                let (old_range, rest) = header.split_once(" +").unwrap();
                let new_range = rest.strip_suffix(" @@\n").unwrap();
                let parse = |r: &str| -> (usize, usize) {
                    match r.split_once(',') {
                        Some((l, s)) => (l.parse().unwrap(), s.parse().unwrap()),
                        None => (r.parse().unwrap(), 1),
                    }
                };
                let (start, len) = parse(old_range);
                counts = [len, parse(new_range).1];
                let from = if len == 0 { start } else { start - 1 };
                assert!(from >= next, "hunks out of order");
                a[next..from].iter().for_each(|l| out.push_str(l));
                next = from;
                continue;
            }
            let (mark, text) = line.split_at(1);
            let mut text = text.to_owned();
            if lines.peek() == Some(&"\\ No newline at end of file\n") {
                lines.next();
                assert_eq!(text.pop(), Some('\n'));
            }
            match mark {
                " " | "-" => {
                    assert_eq!(a[next], text);
                    next += 1;
                    counts[0] -= 1;
                    if mark == " " {
                        out.push_str(&text);
                        counts[1] -= 1;
                    }
                }
                "+" => {
                    out.push_str(&text);
                    counts[1] -= 1;
                }
                _ => panic!("unexpected line {line:?}"),
            }
        }
        assert_eq!(counts, [0, 0]);
        a[next..].iter().for_each(|l| out.push_str(l));
        out
    }

    /// Small texts over a few distinct lines, so that matches are plentiful and ambiguous.
    fn random_text(seed: &mut u64) -> String {
        let mut next = |n: u64| {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            *seed % n
        };
        let lines = [0, 1, 2, 3, 5, 8, 13, 30][next(8) as usize];
        let alphabet = 1 + next(6);
        let mut text: String = (0..lines)
            .map(|_| match next(alphabet + 1) {
                0 => "\n".to_owned(),
                k => format!("line {k}\n"),
            })
            .collect();
        if next(4) == 0 {
            text.pop();
        }
        text
    }

    #[test]
    fn applying_the_diff_gives_the_new_text() {
        let mut seed = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..5000 {
            let old = random_text(&mut seed);
            let new = random_text(&mut seed);
            let diff = unified_diff("f.md", &old, &new);
            assert_eq!(diff.is_empty(), old == new);
            if !diff.is_empty() {
                assert!(diff.ends_with('\n'));
                assert_eq!(apply(&old, &diff), new, "{old:?} -> {new:?}\n{diff}");
            }
        }
    }

    #[test]
    fn equal_texts_give_nothing() {
        assert_eq!(unified_diff("x.md", "", ""), "");
        assert_eq!(unified_diff("x.md", "a\nb\n", "a\nb\n"), "");
        assert_eq!(unified_diff("x.md", "a\nb", "a\nb"), "");
    }

    #[test]
    fn one_changed_line() {
        assert_eq!(
            unified_diff("m/x.md", "a\nb\nc\n", "a\nB\nc\n"),
            "--- a/m/x.md\n+++ b/m/x.md\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
        );
    }

    #[test]
    fn creation_and_deletion() {
        assert_eq!(
            unified_diff("x", "", "a\nb\n"),
            "--- /dev/null\n+++ b/x\n@@ -0,0 +1,2 @@\n+a\n+b\n"
        );
        assert_eq!(
            unified_diff("x", "a\n", ""),
            "--- a/x\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n"
        );
    }

    #[test]
    fn missing_newline_on_one_side() {
        assert_eq!(
            unified_diff("x", "a\nb", "a\nb\n"),
            "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"
        );
    }

    #[test]
    fn ranges() {
        assert_eq!(range(0, 0), "0,0");
        assert_eq!(range(4, 4), "4,0");
        assert_eq!(range(4, 5), "5");
        assert_eq!(range(4, 7), "5,3");
    }

    #[test]
    fn large_inputs_stay_bounded() {
        // 3000 × 3000 lines, none matching: all are discarded before the search, which is
        // then trivial (9M pairs, but none left to compare)
        let old: String = (0..3000).map(|i| format!("old {i}\n")).collect();
        let new: String = (0..3000).map(|i| format!("new {i}\n")).collect();
        let d = unified_diff("x", &old, &new);
        assert!(d.starts_with("--- a/x\n+++ b/x\n@@ -1,3000 +1,3000 @@\n-old 0\n"));
        // many lines that all match something on the other side, shuffled: over the limit
        let old: String = (0..2500).map(|i| format!("{}\n", i % 50)).collect();
        let new: String = (0..2500)
            .map(|i| format!("{}\n", (i * 7 + 3) % 50))
            .collect();
        let d = unified_diff("x", &old, &new);
        assert!(d.contains("@@ -1,2500 +1,2500 @@\n"));
        // one edit in a long file: the identical ends are not searched
        let old: String = (0..100_000).map(|i| format!("line {i}\n")).collect();
        let new = old.replacen("line 50000\n", "LINE 50000\n", 1);
        assert_eq!(
            unified_diff("x", &old, &new),
            "--- a/x\n+++ b/x\n@@ -49998,7 +49998,7 @@\n line 49997\n line 49998\n line 49999\n\
             -line 50000\n+LINE 50000\n line 50001\n line 50002\n line 50003\n"
        );
    }
}
