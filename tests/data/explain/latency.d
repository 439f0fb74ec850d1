/* latency by object and op, slow ones by command, a report each second */
#pragma D option quiet
io:::done { @lat[object, op] = quantize(latency); }
io:::done /latency > 10000000 || (execname == "dd" && !(flags & 1))/ {
	@slow[execname] = count();
	@bytes[pid % 4] = sum(bytes / 512);
}
tick-1s { printa(@lat); trunc(@slow, 5); }
END { printf("%s\n", "done"); exit(n > 2 ? 1 : 0); }
BEGIN { n = 0; }
