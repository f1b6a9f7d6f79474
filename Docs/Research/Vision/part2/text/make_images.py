from PIL import Image, ImageDraw, ImageFont
F="/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
# Image 1: text on photo (coffee.png 600x400 -> 960x640)
im=Image.open("/work/shared/images/coffee.png").convert("RGB").resize((960,640),Image.BICUBIC)
d=ImageDraw.Draw(im,"RGBA")
f1=ImageFont.truetype(F,40); f2=ImageFont.truetype(F,28)
d.rectangle([20,20,720,80],fill=(0,0,0,160)); d.text((30,26),"Fresh Coffee Every Morning",font=f1,fill=(255,255,255))
d.text((40,560),"Open daily from 7:00 to 18:30",font=f2,fill=(255,255,255),stroke_width=2,stroke_fill=(0,0,0))
d.text((520,600),"www.example.com",font=f2,fill=(255,255,0))
im.save("images/photo_text.png")
# Image 2: document page 960x720 white with lines, one upside-down line, small photo
pg=Image.new("RGB",(960,720),(255,255,255)); d=ImageDraw.Draw(pg)
f=ImageFont.truetype(F,30); fs=ImageFont.truetype(F,22)
lines=["The quick brown fox jumps over the lazy dog.","Invoice No. 2024-0117   Total: $1,234.56","OpenVINO runs this model on the CPU","Hello, World! (it's 12:45 pm)"]
y=40
for L in lines:
    d.text((50,y),L,font=f,fill=(0,0,0)); y+=60
d.text((50,y+10),"small text: contact support@example.org or call +1 555 0100",font=fs,fill=(40,40,40))
# upside-down line
t=Image.new("RGB",(600,50),(255,255,255)); ImageDraw.Draw(t).text((5,5),"This line is upside down",font=f,fill=(0,0,0))
pg.paste(t.rotate(180),(50,400))
ph=Image.open("/work/shared/images/camera.png").convert("RGB").resize((240,240))
pg.paste(ph,(680,440))
pg.save("images/page.png")
print(im.size,pg.size)
