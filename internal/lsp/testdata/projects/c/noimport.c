/* Uses strlen without including <string.h>. */

unsigned long name_length(const char *name)
{
	return strlen(name);
}
