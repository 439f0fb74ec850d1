#pragma D option quiet
io:::done { @lat[object] = quantize(latency); @n[object, op] = count(); @s[comm] = sum(bytes); }
io:::done /bytes > 1k/ { @lq = lquantize(latency / 1000, 0, 100, 10); @a[pid] = avg(latency); }
tick-10ms { printa(@n); clear(@n); trunc(@s, 2); }
END { printf("%d %s %5.2x\n", timestamp, probename, 255); }
