# ivpair.awk - brute-force reference for the interval fields: over the CSV of
# `vxreplay FILE --report events --format csv`, one line per completion:
#   time object sector q2d d2c q2c q2g g2i i2d   ("-" = not known)
# Each completion is paired with its own I/O by object and first sector, by
# scanning every I/O seen so far: a queue opens an I/O; getrq, insert and
# issue mark the oldest open one at that sector lacking that phase (or open
# one); a merge folds the merged bio away, or moves an unissued request that
# starts where the bio ends to the bio's sector; the completion closes the
# oldest issued one at its sector (else the oldest open one). Used with
# awk -F, -f ivpair.awk.
NR > 1 {
t = $1; o = $2; p = $3; s = $6; n = $7 / 512
if (p == "queue") { id = ++nid; obj[id] = o; sec[id] = s; tq[id] = t; open[id] = 1; next }
if (p == "getrq" || p == "insert" || p == "start") {
	ph = p == "getrq" ? "g" : p == "insert" ? "i" : "d"
	best = 0
	for (id = 1; id <= nid; id++)
		if (open[id] && obj[id] == o && sec[id] == s && !((id, ph) in tp)) { best = id; break }
	if (!best) { best = ++nid; obj[best] = o; sec[best] = s; open[best] = 1 }
	tp[best, ph] = t; next
}
if (p == "merge") {
	for (id = 1; id <= nid; id++)
		if (open[id] && obj[id] == o && sec[id] == s && !((id, "g") in tp)) {
			if (!((id, "i") in tp) && !((id, "d") in tp)) open[id] = 0
			break
		}
	if (n > 0)
		for (id = 1; id <= nid; id++)
			if (open[id] && obj[id] == o && sec[id] == s + n && !((id, "d") in tp)) {
				sec[id] = s; break
			}
	next
}
if (p == "done") {
	best = 0
	for (id = 1; id <= nid; id++)
		if (open[id] && obj[id] == o && sec[id] == s && ((id, "d") in tp)) { best = id; break }
	if (!best)
		for (id = 1; id <= nid; id++)
			if (open[id] && obj[id] == o && sec[id] == s) { best = id; break }
	if (!best) { print t, o, s, "-", ($8 > 0 ? $8 : "-"), "-", "-", "-", "-"; next }
	open[best] = 0
	q = (best in tq) ? tq[best] : ""
	g = ((best, "g") in tp) ? tp[best, "g"] : ""
	i = ((best, "i") in tp) ? tp[best, "i"] : ""
	d = ((best, "d") in tp) ? tp[best, "d"] : ""
	d2c = iv(d, t); if (d2c == "-" && d == "" && $8 > 0) d2c = $8
	print t, o, s, iv(q, d), d2c, iv(q, t), iv(q, g), iv(g, i), iv(i, d)
}
}
function iv(a, b) { return a == "" || b == "" || b < a ? "-" : b - a }
