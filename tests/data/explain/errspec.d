/* keep the I/Os that fail, each with its start: a speculation per request */
#pragma D option nspec=4096
io:::start { req->spec = speculation(); }
io:::start, io:::done /req->spec/ { speculate(req->spec); }
io:::done /req->spec && error/ { commit(req->spec); }
io:::done /req->spec && !error/ { discard(req->spec); }
