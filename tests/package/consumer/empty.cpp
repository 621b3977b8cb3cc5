// A bench executable that registers nothing: every measuring command must say so and exit 2.
