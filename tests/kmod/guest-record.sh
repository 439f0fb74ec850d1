# guest-record.sh - vxrecord --source kmod checks, sourced by guest.sh
# expect: record_dd record_fio
res FAIL record_dd "not written yet"
res FAIL record_fio "not written yet"
