io:::start { req->s = speculation(); speculate(req->s); trace(sector); }
io:::done /req->s/ { speculate(req->s); printf("%s %d", comm, latency); }
io:::error /req->s/ { commit(req->s); commit(self->x); }
io:::done /req->s && !error/ { discard(req->s); }
io:::lost { x[pid, "lost"] = sector; this->y = x[pid, "lost"] ? 1 / (pid - pid) : 2; }
io:::queue { self->x = speculation(); exit(0); }
