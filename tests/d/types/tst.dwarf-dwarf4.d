/*
 * triggers/tr-types-dwarf4 is tr-types with DWARF 4 debug information
 * (gcc places its bit-fields with DW_AT_bit_offset, counted from the
 * top of their storage unit, where DWARF 5 has DW_AT_data_bit_offset):
 * struct request reads as it does from DWARF 5 (tst.dwarf-struct.d).
 */
#pragma D option quiet

pid$target:a.out:tr_request:entry
{
	this->r = (request_t *)copyin(arg0, sizeof (struct request));
	printf("%d prio %d delta %d urgent %d kind %d tag %s size %d\n",
	    this->r->id, this->r->prio, this->r->delta, this->r->urgent,
	    this->r->kind, stringof(this->r->tag), sizeof (request_t));
}
