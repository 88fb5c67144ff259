/* tests/core/plugin.c - a plugin for the module-map test: its constructor
 * reports whether the loading thread was marked as inside the loader. */
extern void test_loader_probe(void);

__attribute__((constructor)) static void plugin_ctor(void)
{
	test_loader_probe();
}

int hp_test_plugin_fn(int x)
{
	return x * 2 + 1;
}
