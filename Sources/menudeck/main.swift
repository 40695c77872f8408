print("menudeck")
