/* every kind of variable, ++, compound assignment and ?: */
#pragma D option quiet
io:::start { self->ts = timestamp; req->bytes = bytes; seen[object, op]++; }
io:::done /self->ts/ {
	this->us = (timestamp - self->ts) / 1000;
	total += this->us;
	n = n + 1;
	printf("%-8s %6d %s\n", execname, this->us, req->bytes >= 65536 ? "big" : "small");
	self->ts = 0;
}
END { trace(total / (n ? n : 1)); trace(seen["sda", "read"]); }
